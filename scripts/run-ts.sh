#!/usr/bin/env bash
# Runs a TypeScript script without a separate compile step (transpile only; `npm run typecheck` checks
# types), on the Node floor.
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/node-floor.sh"
exec node -r ts-node/register/transpile-only -r tsconfig-paths/register "$@"
