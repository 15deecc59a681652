#!/usr/bin/env bash
# Runs jest with what it needs to load NestJS 12's ES-module packages from CommonJS tests: Node 24's
# synchronous module evaluation behind --experimental-vm-modules (jest then requires them as Node does).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/node-floor.sh
source "$root/scripts/node-floor.sh"
exec node --experimental-vm-modules --disable-warning=ExperimentalWarning "$root/node_modules/jest/bin/jest.js" "$@"
