#!/usr/bin/env bash
# Runs a TypeScript script without a separate compile step (transpile only; `npm run typecheck` checks types).
exec node -r ts-node/register/transpile-only -r tsconfig-paths/register "$@"
