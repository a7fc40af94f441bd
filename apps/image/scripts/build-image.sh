#!/usr/bin/env bash
# Builds the server's image from the repository's root Dockerfile, with its OCI labels filled in
# from the server's package.json and git, and reports how long it took and how large it is.
#
# Usage: build-image.sh <tag>
# Environment: PLANT_STORE_NODE_IMAGE, the base image (default: the Dockerfile's official
# node:26-bookworm-slim); CI passes a local stand-in (node-base-stand-in.sh).
set -euo pipefail

tag=${1:?usage: build-image.sh <tag>}
root=$(cd "$(dirname "$0")/../../.." && pwd)
version=$(node -p "require('$root/apps/server/package.json').version")
revision=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
base=()
if [ -n "${PLANT_STORE_NODE_IMAGE:-}" ]; then base=(--build-arg "NODE_IMAGE=$PLANT_STORE_NODE_IMAGE"); fi

started=$(date +%s)
log=$(mktemp /tmp/plant-store-image-build.XXXXXX)
# The build's RUN steps use the host's network: they need the package registries, and the
# daemon may run without its own NAT rules (.ci/run starts it so).
if ! docker build --network host --tag "$tag" "${base[@]}" \
  --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
  --build-arg "CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  "$root" >"$log" 2>&1; then
  tail -40 "$log" >&2
  rm -f "$log"
  echo "build-image: docker build failed" >&2
  exit 1
fi
rm -f "$log"
size=$(docker image inspect --format '{{.Size}}' "$tag")
echo "build-image: $tag built in $(($(date +%s) - started)) s, $((size / 1000000)) MB"
