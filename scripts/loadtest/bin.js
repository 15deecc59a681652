#!/usr/bin/env node
// The package's `bin` for the load test (`flash-sale-loadtest` once linked: `npm link`), doing what
// `npm run loadtest --` does: cli.ts through scripts/run-ts.sh, on the Node floor, with
// NODE_ENV=development unless the caller set one. Node resolves this file's symlink, so __dirname
// is the checkout's scripts/loadtest wherever the link lives.
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..', '..');
const result = spawnSync('bash', [join(root, 'scripts', 'run-ts.sh'), join(root, 'scripts', 'loadtest', 'cli.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  // From any folder: run-ts.sh's `-r` hooks resolve from NODE_PATH when the caller's folder has no
  // node_modules, and tsconfig-paths reads the checkout's tsconfig; relative flags stay the caller's.
  env: {
    NODE_ENV: 'development',
    ...process.env,
    NODE_PATH: join(root, 'node_modules'),
    TS_NODE_PROJECT: join(root, 'tsconfig.json'),
  },
});
if (result.error) {
  console.error(`flash-sale-loadtest: could not start bash: ${result.error.message}`);
  process.exit(2);
}
process.exit(result.status ?? 1);
