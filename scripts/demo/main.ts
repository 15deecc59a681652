import { startStack } from '../infra/stack';

/** `npm run demo`: brings the stack up, shows where it answers, and stops it all on Ctrl-C. */
async function main(): Promise<void> {
  const stack = await startStack({ database: 'flashsale_demo', instances: 1, logDir: '.infra/logs' });
  const api = stack.apis[0];
  const health = await fetch(`${api.url}/health`).then((r) => r.json());
  console.log(`API: ${api.url}  (Swagger: ${api.url}/docs)`);
  console.log(`health: ${JSON.stringify(health)}`);
  console.log('Ctrl-C stops everything this demo started.');
  const shutdown = async () => {
    await stack.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
