#!/usr/bin/env bash
# Installs dependencies from the lockfile when this clone has none yet (or they are stale).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/jest ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] installing dependencies (npm ci)"
  # No install script runs: none of our packages needs one (jest's file watcher, which could build
  # a native addon, ships prebuilt), and swagger-ui-dist's (scarf) only sends analytics.
  npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
fi
