#!/usr/bin/env bash
# `npm test`: install if needed, build (multi-process suites run the built app), then every suite.
# Infrastructure is brought up by jest's global setup (test/global-setup.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-install.sh
npm run --silent build >/dev/null
npx jest --selectProjects unit --passWithNoTests "$@"
npx jest --selectProjects e2e --runInBand --passWithNoTests "$@"
if [ "${SKIP_CHAOS:-}" != "1" ]; then
  npx jest --selectProjects chaos --runInBand --passWithNoTests "$@"
fi
