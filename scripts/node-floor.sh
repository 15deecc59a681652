# shellcheck shell=bash
# Sourced by the scripts behind `npm test`, `npm run demo` and CI: makes Node 24 (the project's floor)
# the `node` of this shell and of everything it starts. An older Node on PATH is passed over for the
# copy scripts/node24.sh keeps in .infra/node24 (Linux x64); elsewhere the script stops and says why.
# The floor is a minor release (package.json's engines): 24.0-24.10 lack what 24.11 brought.
node_floor_major=24
node_floor_minor=11
node_floor_met() {
  local version major minor
  version="$(node -p 'process.versions.node' 2>/dev/null || echo 0.0.0)"
  major="${version%%.*}"
  minor="${version#*.}"
  minor="${minor%%.*}"
  [ "$major" -gt "$node_floor_major" ] || { [ "$major" -eq "$node_floor_major" ] && [ "$minor" -ge "$node_floor_minor" ]; }
}
# NODE_FLOOR_MET names the node already found to meet the floor, so nested scripts skip the check.
if [ "${NODE_FLOOR_MET:-}" != "$(command -v node)" ] && ! node_floor_met; then
  if ! node_floor_bin="$(bash "$(dirname "${BASH_SOURCE[0]}")/node24.sh")"; then
    echo "This project needs Node $node_floor_major.$node_floor_minor or later (found $(node --version 2>/dev/null || echo none)); install it and run again." >&2
    exit 1
  fi
  export PATH="$node_floor_bin:$PATH"
  echo "[setup] using Node $(node --version) from $node_floor_bin (the Node on PATH is older than $node_floor_major.$node_floor_minor)" >&2
fi
NODE_FLOOR_MET="$(command -v node)"
export NODE_FLOOR_MET
