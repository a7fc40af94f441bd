#!/usr/bin/env bash
# Builds a stand-in for the official `node:<major>-bookworm-slim` image, for machines that reach
# Debian's packages but no container registry (CI here): Debian bookworm from debootstrap
# (minbase), this machine's Node.js (binary, headers, npm) where the official image keeps them
# (/usr/local), and the `node` user (uid 1000) the official image has. The Dockerfile then builds
# FROM it with `--build-arg NODE_IMAGE=<tag>`.
#
# What the official image does not need and this machine does, set in the image's environment:
# the machine's CA bundle (the registry is reached through a proxy with its own CA) and the local
# Node headers for node-gyp (nodejs.org, where node-gyp downloads them from, is not reachable).
#
# Usage (root, debootstrap and docker installed): node-base-stand-in.sh <tag>
set -euo pipefail

tag=${1:?usage: node-base-stand-in.sh <tag>}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
node_bin=$(readlink -f "$(command -v node)")
prefix=$(dirname "$(dirname "$node_bin")")
version=$(node -p 'process.versions.node')
ca_bundle=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}

for needed in "$prefix/include/node/node.h" "$prefix/lib/node_modules/npm/bin/npm-cli.js" "$ca_bundle"; do
  [ -e "$needed" ] || { echo "node-base-stand-in: $needed is missing" >&2; exit 1; }
done

root=$(mktemp -d /tmp/node-stand-in.XXXXXX)
trap 'rm -rf "$root"' EXIT

started=$(date +%s)
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
  tail -20 "$root.log" >&2
  rm -f "$root.log"
  exit 1
}
rm -f "$root.log"

install -D -m 0755 "$node_bin" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/include" "$root/usr/local/lib/node_modules"
cp -a "$prefix/include/node" "$root/usr/local/include/node"
cp -a "$prefix/lib/node_modules/npm" "$root/usr/local/lib/node_modules/npm"
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
