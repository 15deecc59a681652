import { RedisServerProcess } from '../../../../../test/support/redis-server';
import { TcpProxy } from '../../../../../test/chaos/support/tcp-proxy';
import { createRedisClient } from './redis-client.factory';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A real Redis behind our TCP proxy: a command that timed out while the network swallowed it
// must not run later, once the connection is back (ioredis re-sends such commands by default;
// for a lock acquire that means a lock held by nobody for a whole lease).
describe('createRedisClient', () => {
  let redis: RedisServerProcess;
  let proxy: TcpProxy;

  beforeAll(async () => {
    redis = await RedisServerProcess.start();
    proxy = await TcpProxy.start(redis.port);
  });
  afterAll(async () => {
    await proxy.close();
    await redis.stop();
  });

  it('does not replay, after a reconnect, a command whose caller was told it timed out', async () => {
    const node = { host: '127.0.0.1', port: proxy.port, db: 0, username: undefined, password: undefined, tls: false };
    const client = createRedisClient(node, 300, 'replay-spec');
    const direct = redis.client();
    try {
      await client.connect();
      await client.ping();
      proxy.setMode({ kind: 'blackhole' });
      await expect(client.set('replayed', 'yes', 'PX', 60_000, 'NX')).rejects.toThrow('Command timed out');
      proxy.setMode({ kind: 'pass' }); // resets the swallowed connection; the client reconnects
      let back = false;
      for (let i = 0; i < 100 && !back; i++)
        back = await client.ping().then(
          () => true,
          () => sleep(50).then(() => false),
        );
      expect(back).toBe(true);
      // A command re-sent on reconnect would have been written before that ping on the same
      // connection, and Redis answers in order: it has run by now, or it never will.
      expect(await direct.get('replayed')).toBeNull();
    } finally {
      client.disconnect();
      direct.disconnect();
    }
  });
});
