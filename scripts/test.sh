#!/usr/bin/env bash
# `npm test`: install if needed, build (multi-process suites run the built app), then every suite.
# Infrastructure is brought up by jest's global setup (test/global-setup.ts). --forceExit: the
# suites kill and restart servers on purpose, and a client left reconnecting to one of them must
# not keep jest (and CI) waiting after the results are in.
#
# Arguments go to every jest run (`npm test -- test/e2e/health`). Without arguments each suite
# must find tests: a renamed file or a broken pattern fails the run instead of passing with none.
# With arguments, a suite none of whose files match is skipped, but one suite at least must match.
#
# A test run leaves the working tree as it found it: every output goes to an ignored folder
# (reports/, .infra/, the system's temp dir). The state of the tree is taken before the run and
# compared after it, so a developer's own uncommitted work is no failure.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node-floor.sh

# What git sees: which files differ from HEAD or are untracked, and the content of each.
tree_state() {
  git status --porcelain=v1 --untracked-files=all
  git diff HEAD --binary | git hash-object --stdin
  git ls-files -z --others --exclude-standard | while IFS= read -r -d '' file; do
    printf '%s %s\n' "$(git hash-object -- "$file")" "$file"
  done
}

in_git=0
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then in_git=1; fi
before=""
if [ "$in_git" = 1 ]; then before="$(tree_state)"; fi

bash scripts/ensure-install.sh
npm run --silent build >/dev/null

# bash 3.2 (macOS) calls an empty "${args[@]}" unbound under set -u: expand it only when set.
args=("$@")
suites_run=0

# suite <project> [jest flags...]: runs one jest project with the arguments of `npm test`.
suite() {
  local project="$1"
  shift
  # --listTests prints the matching files as absolute paths (after a "Running one project" line).
  if [ "${#args[@]}" -gt 0 ] && ! bash scripts/jest.sh ${args[@]+"${args[@]}"} --listTests --selectProjects "$project" 2>/dev/null | grep -q '^/'; then
    echo "npm test: no $project test matches '${args[*]}'; $project skipped"
    return 0
  fi
  # Flags before the arguments: --selectProjects would read a path given right after it as a project.
  bash scripts/jest.sh --selectProjects "$project" "$@" --forceExit ${args[@]+"${args[@]}"}
  suites_run=$((suites_run + 1))
}

# In band: the lock library's specs time leases of a few hundred ms, and beside a second worker
# running the CPU-bound specs (join-work solves, the checker's 100,000-operation history) on
# 2 cores their renewals ran late and leases lapsed in CI.
suite unit --runInBand
# The lock library as a package: packed, installed into a fresh consumer, run against Redis
# (whole runs only: it matches no test file an argument could name).
if [ "${#args[@]}" -eq 0 ]; then bash scripts/run-ts.sh scripts/lock-package/smoke.ts; fi
suite e2e --runInBand
if [ "${SKIP_CHAOS:-}" != "1" ]; then
  # The soak scenario runs 60 s here; `npm run test:chaos` runs the full 5 minutes.
  CHAOS_SOAK_S="${CHAOS_SOAK_S:-60}" suite chaos --runInBand
fi

if [ "$suites_run" = 0 ]; then
  echo "npm test: no test matches '${args[*]}' in any suite" >&2
  exit 1
fi

if [ "$in_git" = 0 ]; then
  echo "npm test: not a git checkout; the check that the run changed no tracked file was skipped"
  exit 0
fi
after="$(tree_state)"
if [ "$before" != "$after" ]; then
  echo "npm test: the run changed the working tree (tests must write only to ignored folders):" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
