#!/usr/bin/env bash
# `npm start`: the built API on the Node floor, with the flags that keep its peak memory down under
# a hot sale (scripts/infra/api-process.ts says why; the Dockerfile's CMD uses the same).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node-floor.sh
exec node --max-semi-space-size=32 --heap-growing-percent=100 dist/apps/api/main.js "$@"
