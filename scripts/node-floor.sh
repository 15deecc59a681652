# Sourced by the scripts behind `npm test`, `npm run demo` and CI: makes Node 24 (the project's floor)
# the `node` of this shell and of everything it starts. An older Node on PATH is passed over for the
# copy scripts/node24.sh keeps in .infra/node24 (Linux x64); elsewhere the script stops and says why.
node_floor_major=24
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt "$node_floor_major" ]; then
  if ! node_floor_bin="$(bash "$(dirname "${BASH_SOURCE[0]}")/node24.sh")"; then
    echo "This project needs Node $node_floor_major or later (found $(node --version 2>/dev/null || echo none)); install it and run again." >&2
    exit 1
  fi
  export PATH="$node_floor_bin:$PATH"
  echo "[setup] using Node $(node --version) from $node_floor_bin (the Node on PATH is older than $node_floor_major)"
fi
