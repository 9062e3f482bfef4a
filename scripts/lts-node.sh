#!/usr/bin/env bash
# Prints the directory of a Node on a supported LTS line (the one `engines` asks for), for callers
# to put first on PATH: the machine's own when it is new enough, otherwise the `node` binary the
# npm registry serves (package node-linux-<arch>, checked against the registry's integrity hash by
# npm), unpacked once into .tools/. npm itself then runs on that Node too.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The oldest Node the packages accept (their `engines`), and the one installed when the machine's
# is older.
minimum=22.12
version=22.23.5

new_enough() {
  "$1" -e "const [a, b] = process.versions.node.split('.').map(Number);
    const [x, y] = '$minimum'.split('.').map(Number);
    process.exit(a > x || (a === x && b >= y) ? 0 : 1)"
}

if command -v node >/dev/null && new_enough node; then
  dirname "$(command -v node)"
  exit 0
fi

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "lts-node: no node package for $(uname -m); install Node $minimum or newer" >&2; exit 1 ;;
esac

dir=".tools/node-$version"
if [ ! -x "$dir/bin/node" ]; then
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
  echo "lts-node: installing Node $version (node-linux-$arch from the npm registry) into $dir" >&2
  (cd "$scratch" && npm pack --silent "node-linux-$arch@$version" >/dev/null && tar -xzf ./*.tgz)
  mkdir -p "$dir"
  cp -R "$scratch/package/bin" "$dir/"
  new_enough "$dir/bin/node"
fi
echo "$PWD/$dir/bin"
