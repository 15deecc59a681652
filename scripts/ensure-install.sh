#!/usr/bin/env bash
# Installs dependencies from the lockfile when this clone has none yet (or they are stale).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/jest ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] installing dependencies (npm ci)"
  # swagger-ui-dist's install-time analytics (scarf) would write to the system temp folder and
  # call out to the network; opted out here and in package.json (scarfSettings).
  SCARF_ANALYTICS=false npm ci --no-audit --no-fund --loglevel=error
fi
