#!/usr/bin/env bash
# Runs redis-semaphore's own tests of its Mutex, RedlockMutex and Lock (37 of them) against our
# library, through adapter.ts:
#
#   npm run test:semaphore-suite -- <redis-semaphore checkout: a work tree or a git dir>
#
# Their test/ folder is copied into .infra/semaphore-suite/ with two substitutions: the modules
# it imports from ../src re-export the adapter, and its shell.ts (docker compose in theirs)
# re-exports ours, which starts and stops private redis-server processes. Their test tools are
# installed there, at the versions their package.json names. Nothing of theirs is kept in this
# repository.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
from="${1:?usage: run.sh <redis-semaphore checkout (a work tree or a git dir)>}"
work="$root/.infra/semaphore-suite"
command -v "${REDIS_SERVER_BIN:-redis-server}" >/dev/null || { echo "redis-server is missing: apt-get install -y redis-server" >&2; exit 2; }
suite="$work/suite"
mkdir -p "$suite"
rm -rf "$suite/test" "$suite/src"

if [ -d "$from/test" ]; then
  cp -r "$from/test" "$suite/" && cp "$from/package.json" "$work/their-package.json"
else
  git --git-dir="$from" archive HEAD test | tar -x -C "$suite"
  git --git-dir="$from" show HEAD:package.json >"$work/their-package.json"
fi

# The paths their tests import, each re-exporting the adapter.
adapter="$here/adapter"
reexport() { mkdir -p "$(dirname "$suite/src/$1")" && printf '%s\n' "$2" >"$suite/src/$1"; }
reexport index.ts "export * from '$adapter';"
reexport Lock.ts "export { Lock } from '$adapter';"
reexport RedisMutex.ts "export { Mutex as default } from '$adapter';"
reexport RedlockMutex.ts "export { RedlockMutex as default } from '$adapter';"
reexport errors/LostLockError.ts "export { LostLockError as default } from '$adapter';"
reexport errors/TimeoutError.ts "export { TimeoutError as default } from '$adapter';"
reexport types.ts "export type { LockOptions, TimeoutOptions, LockLostCallback } from '$adapter';"
reexport utils/index.ts "export { delay } from '$adapter';"
printf '%s\n' "export * from '$here/shell';" >"$suite/test/shell.ts"
printf '%s\n' '{ "compilerOptions": { "target": "es2022", "module": "commonjs", "esModuleInterop": true, "strict": true, "skipLibCheck": true } }' >"$suite/tsconfig.json"

# Their test tools, at their versions (installed once; kept between runs).
tools=(mocha chai chai-as-promised sinon sinon-chai ioredis ioredis-mock @swc-node/register @swc/core typescript)
# shellcheck disable=SC2016 # the single quotes hold JavaScript, for node, not the shell
specs=$(node -e 'const d = require(process.argv[1]).devDependencies; console.log(process.argv.slice(2).map((n) => `${n}@${d[n].replace(/^\^/, "")}`).join(" "))' "$work/their-package.json" ${tools[@]+"${tools[@]}"})
if [ "$(cat "$work/installed" 2>/dev/null)" != "$specs" ]; then
  [ -f "$suite/package.json" ] || printf '{ "private": true }\n' >"$suite/package.json"
  # shellcheck disable=SC2086
  (cd "$suite" && npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error $specs)
  printf '%s' "$specs" >"$work/installed"
fi

# Three private servers (their docker-compose has redis1..3 for these tests), which shell.ts
# starts and stops, on free ports (asked for together, so the kernel gives three different ones).
read -r -a ports < <(cd "$suite" && node -r @swc-node/register -e "const { freePort } = require('$root/test/support/free-port'); Promise.all([1, 2, 3].map(freePort)).then((p) => console.log(p.join(' ')))")
for n in 1 2 3; do export "REDIS_URI$n=redis://127.0.0.1:${ports[n - 1]}"; done

cd "$suite"
npx mocha --exit --timeout 5s -r @swc-node/register -r test/setup.ts -r test/shell.ts \
  test/init.test.ts test/src/RedisMutex.test.ts test/src/RedlockMutex.test.ts test/src/Lock.test.ts
