#!/usr/bin/env bash
# `npm run demo`: on Node 24 (fetched into .infra when the machine's is older), install if needed,
# build, then the flash sale of scripts/demo/main.ts (its flags pass through).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node-floor.sh
bash scripts/ensure-install.sh
npm run --silent build >/dev/null
NODE_ENV=development exec bash scripts/run-ts.sh scripts/demo/main.ts "$@"
