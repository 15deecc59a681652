#!/usr/bin/env bash
# Runs redis-semaphore's own tests of its Mutex, RedlockMutex and Lock (37 of them) against our
# library, through adapter.ts:
#
#   npm run test:semaphore-suite -- <redis-semaphore checkout: a work tree or a git dir>
#
# Their test/ folder is copied into .infra/semaphore-suite/ with two substitutions: the modules
# it imports from ../src re-export the adapter, and shell.ts (docker compose in theirs) starts
# and stops private redis-server processes. Their test tools are installed there, at the
# versions their package.json names. Nothing of theirs is kept in this repository.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
from="${1:?usage: run.sh <redis-semaphore checkout (a work tree or a git dir)>}"
work="$root/.infra/semaphore-suite"
for tool in redis-server redis-cli; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install -y redis-server" >&2; exit 2; }
done
suite="$work/suite"
mkdir -p "$suite" "$work/redis"
rm -rf "$suite/test" "$suite/src"

if [ -d "$from/test" ]; then
  cp -r "$from/test" "$suite/" && cp "$from/package.json" "$work/their-package.json"
else
  git --git-dir="$from" archive HEAD test | tar -x -C "$suite"
  git --git-dir="$from" show HEAD:package.json >"$work/their-package.json"
fi
cp "$here/shell.ts" "$suite/test/shell.ts"

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
printf '%s\n' '{ "compilerOptions": { "target": "es2022", "module": "commonjs", "esModuleInterop": true, "strict": true, "skipLibCheck": true } }' >"$suite/tsconfig.json"

# Their test tools, at their versions (installed once; kept between runs).
tools=(mocha chai chai-as-promised sinon sinon-chai ioredis ioredis-mock @swc-node/register @swc/core typescript)
specs=$(node -e 'const d = require(process.argv[1]).devDependencies; console.log(process.argv.slice(2).map((n) => `${n}@${d[n].replace(/^\^/, "")}`).join(" "))' "$work/their-package.json" "${tools[@]}")
if [ "$(cat "$work/installed" 2>/dev/null)" != "$specs" ]; then
  [ -f "$suite/package.json" ] || printf '{ "private": true }\n' >"$suite/package.json"
  # shellcheck disable=SC2086
  (cd "$suite" && npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error $specs)
  printf '%s' "$specs" >"$work/installed"
fi

# Three private servers (their docker-compose has redis1..3 for these tests).
ports=()
for n in 1 2 3; do
  port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
  ports+=("$port")
  export "REDIS_URI$n=redis://127.0.0.1:$port"
done
export SEMAPHORE_SUITE_DIR="$work/redis"
stop_servers() { for port in "${ports[@]}"; do redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; done; }
trap stop_servers EXIT
for n in 1 2 3; do (cd "$suite" && node -r @swc-node/register -e "require('./test/shell').upRedisServer($n)"); done

cd "$suite"
npx mocha --exit --timeout 5s -r @swc-node/register -r test/setup.ts \
  test/init.test.ts test/src/RedisMutex.test.ts test/src/RedlockMutex.test.ts test/src/Lock.test.ts
