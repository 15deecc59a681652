#!/usr/bin/env bash
# The unit and e2e suites again, under Node 24 (the image's Node; `npm test` runs them on the
# machine's Node, 20 or later). The built app is the same JavaScript; the e2e suite spawns it with
# the Node running jest, so those instances run on 24 too. Arguments go to both jest runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(bash scripts/node24.sh)"
export PATH="$bin:$PATH"
echo "node24: $(node --version) from $bin"
bash scripts/ensure-install.sh
npm run --silent build >/dev/null
started=$SECONDS
npx jest --selectProjects unit --forceExit "$@"
echo "node24: unit suite took $((SECONDS - started)) s"
started=$SECONDS
npx jest --selectProjects e2e --runInBand --forceExit "$@"
echo "node24: e2e suite took $((SECONDS - started)) s"
