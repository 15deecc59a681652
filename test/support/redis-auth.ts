import { connect } from 'node:net';
import { loadConfig } from '../../apps/api/src/config/app-config';
import { connectQuietly, createRedisConnection, RedisConnection } from '../../apps/api/src/common/redis/redis-client.factory';

/** What a client without credentials gets from the node at `port`: the raw reply to a PING (RESP, no client library). */
export function answerWithoutPassword(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.setTimeout(3000, () => socket.destroy(new Error(`no answer from port ${port}`)));
    socket.once('data', (reply) => {
      resolve(reply.toString('utf8').trim());
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

/** The app's own client (REDIS_MODE and credentials as configuration gives them), connected, and its PING's answer. */
export async function appPing(env: Record<string, string>): Promise<{ answer: string; client: RedisConnection }> {
  const config = loadConfig({ NODE_ENV: 'test', ...env });
  const client = createRedisConnection({ ...config.redis, commandTimeoutMs: 3000 }, 'auth-spec');
  client.on('error', () => undefined);
  await connectQuietly(client, 3000);
  const answer = await client.ping().then(String, (error: Error) => error.message);
  return { answer, client };
}

/**
 * Every port refuses a client without a password (NOAUTH); the app's client connects with `env`,
 * and fails to once `withoutKey` (a password variable) is taken out of it.
 */
export async function expectPasswordsRequired(ports: number[], env: Record<string, string>, withoutKey: string): Promise<void> {
  for (const port of ports) expect(await answerWithoutPassword(port)).toMatch(/NOAUTH/);
  const configured = await appPing(env);
  expect(configured.answer).toBe('PONG');
  configured.client.disconnect();
  const { [withoutKey]: _removed, ...without } = env;
  const refused = await appPing(without);
  expect(refused.answer).not.toBe('PONG');
  refused.client.disconnect();
}
