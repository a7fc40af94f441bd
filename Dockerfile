# The Plant Store server as an image: `docker build -t plant-store .` from the repository's root.
# Written for the classic builder as well as BuildKit (no RUN --mount, no heredocs, no
# COPY --chmod), so Docker 20.10 builds it. How to run it: docs/guides/container.md.
#
# The base is a build argument so that a machine which reaches no container registry can build
# from a local stand-in with the same layout (apps/image/README.md says how CI makes one). Node 26
# is the active LTS line (supported until April 2029): docs/reference/runtime.md.
ARG NODE_IMAGE=node:26-bookworm-slim

# ---- build: the server from the frozen lockfile, then a self-contained folder of it ------------
FROM ${NODE_IMAGE} AS build
# Marks what the classic builder keeps of this stage (an untagged image), for clean-up:
# docker image prune --filter label=org.plant-store.stage=build
LABEL org.plant-store.stage=build
# No compiler: better-sqlite3 is a Node-API addon whose package carries its binaries for every
# platform (pnpm-workspace.yaml says why its install script is not run).
WORKDIR /src
# pnpm at the version package.json names (corepack is avoided: its signature check needs a
# registry key it may not reach).
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
# The dependency patches pnpm-workspace.yaml names, applied at install.
COPY patches patches/
RUN npm install --global --no-fund --no-audit --no-update-notifier \
      "pnpm@$(node -p "require('./package.json').packageManager.split('@')[1]")"
# The server's dependencies from the lockfile: this layer is rebuilt
# only when the lockfile or one of these manifests changes. A workspace package the server comes
# to depend on is added here (the install fails without its manifest).
COPY apps/server/package.json apps/server/
COPY packages/domain/package.json packages/domain/
COPY packages/testkit/package.json packages/testkit/
RUN pnpm install --frozen-lockfile --filter '@plant-store/server...'
COPY . .
# `deploy` with injected workspace packages takes its versions from the lockfile (`--legacy`
# would resolve them again from the registry).
RUN pnpm --filter @plant-store/domain --filter @plant-store/server run build \
 && pnpm --filter @plant-store/server --config.inject-workspace-packages=true deploy --offline --prod /out \
 && rm -rf /out/src /out/test /out/tsconfig*.json /out/vitest.config.ts /out/data \
 && find /out -name '*.map' -delete \
 && find /out/dist -name '*.test.*' -delete

# ---- runtime: Node, the server folder, nothing else ------------------------------------------
FROM ${NODE_IMAGE}
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="Plant Store server" \
      org.opencontainers.image.description="Plant Store HTTP API: Koa over SQLite (default, on the /data volume) or PostgreSQL." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.vendor="Plant Store"

COPY --from=build /out /app
# The admin CLIs on PATH (pnpm deploy links no bins), and the store's folder owned by the
# user the server runs as: a volume mounted there takes the folder's owner the first time.
RUN for cli in server tokens webhooks data; do \
      chmod 0755 "/app/bin/plant-store-$cli.js" \
      && ln -s "/app/bin/plant-store-$cli.js" "/usr/local/bin/plant-store-$cli"; \
    done \
 && mkdir /data \
 && chown node:node /data

# HOST: reachable from outside the container. SHUTDOWN_TIMEOUT_MS: the drain ends before the
# 10 s after which `docker stop` sends SIGKILL.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/plant-store.db \
    SHUTDOWN_TIMEOUT_MS=8000
USER node
WORKDIR /app
VOLUME ["/data"]
EXPOSE 3000
# Readiness, with what the image already has (the slim base has no curl).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz',{signal:AbortSignal.timeout(2500)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and gets docker stop's SIGTERM itself, which starts the drain.
CMD ["node", "/app/dist/main.js"]
