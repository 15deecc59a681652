#!/usr/bin/env bash
# `npm test`: install if needed, build (multi-process suites run the built app), then every suite.
# Infrastructure is brought up by jest's global setup (test/global-setup.ts). --forceExit: the
# suites kill and restart servers on purpose, and a client left reconnecting to one of them must
# not keep jest (and CI) waiting after the results are in.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-install.sh
npm run --silent build >/dev/null
npx jest --selectProjects unit --passWithNoTests --forceExit "$@"
npx jest --selectProjects e2e --runInBand --passWithNoTests --forceExit "$@"
if [ "${SKIP_CHAOS:-}" != "1" ]; then
  # The soak scenario runs 60 s here; `npm run test:chaos` runs the full 5 minutes.
  CHAOS_SOAK_S="${CHAOS_SOAK_S:-60}" npx jest --selectProjects chaos --runInBand --passWithNoTests --forceExit "$@"
fi
