#!/usr/bin/env bash
# The unit and e2e suites again, under Node 24 (the image's Node; `npm test` runs them on the
# machine's Node, 20 or later). The built app is the same JavaScript; the e2e suite spawns it with
# the Node running jest, so those instances run on 24 too. Arguments go to both jest runs.
#
# The e2e run leaves out, unless NODE24_FULL=1, the suites whose subject is a Redis or Postgres
# topology (Sentinel, Cluster, PgBouncer failovers) or a long load run (the demo, the 5,000-buyer
# sale, the health probe's Postgres count): they start the app as the others do, which the rest
# of the suite covers on 24, and they are a third of its time (~190 s of ~400 s here).
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
skip=()
if [ "${NODE24_FULL:-}" != "1" ]; then
  skip=(--testPathIgnorePatterns '/test/e2e/(scale-[a-z-]+|demo|waiting-room-sale|health)\.e2e-spec\.ts$')
fi
npx jest --selectProjects e2e --runInBand --forceExit "${skip[@]}" "$@"
echo "node24: e2e suite took $((SECONDS - started)) s"
