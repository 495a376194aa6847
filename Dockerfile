# risk-api container image (docs/operations.md#container).
#
# Every step is a command CI runs on a clean clone (.ci/run: `npm ci`, then the build `npm start` and the
# tests run: `npm run build`), plus `npm ci --omit=dev --omit=optional` and `npm run prune:runtime` for the
# runtime's packages. No image could be built
# or pulled where this file was written (no registry reachable), so scripts/runtime-stage.mjs executes this
# file's runtime stage in a temporary directory instead, and test/integration/container.test.ts runs it:
# the packages install, the server starts from the bundle, and this HEALTHCHECK passes.
#
# --ignore-scripts: the npm of these machines (11) runs no install script it was not told to trust, and the
# build and the service need none (esbuild's binary comes as an optional package; Prisma's engine download
# is exactly what the project avoids: docs/operations.md#storage-and-migrations). An npm that runs install
# scripts by default would run them; the flag keeps the image to what was tested.
#
# Node.js 24, an LTS line maintained until April 2028, inside the supported range (package.json engines:
# >=22.15; docs/decisions/0052-node-22-15-and-up.md). Pin the base image by digest for reproducible builds:
# --build-arg NODE_IMAGE=node:24-bookworm-slim@sha256:…
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The npm cache is a build cache mount, never a layer of the image.
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund --ignore-scripts
COPY . .
# The commit built, for `risk-api version` and risk_api_build_info (the context has no .git):
# docker build --build-arg SOURCE_COMMIT=$(git rev-parse HEAD) .
ARG SOURCE_COMMIT=
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/prune-runtime.mjs ./scripts/
# Only what runs: no development package, no optional one (here only the `prisma` CLI and TypeScript, optional
# peers of @prisma/client, and platform binaries of esbuild, a build tool), then, in the same RUN so that no layer
# keeps them, the files of runtime packages nothing reads (scripts/prune-runtime.mjs: the query compilers of other
# databases, other encodings of the network data). node_modules: 800 MB before, 189 MB after (du; docs/operations.md#container).
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --omit=optional --no-audit --no-fund --ignore-scripts && npm run prune:runtime
# The bundles (the server `npm start` runs and the operator CLI `npx risk-api` runs, with GraphiQL's prebuilt
# browser files in dist/graphiql), the migrations applied at start (found beside package.json), and the CLI's
# entry point. No sources: bin/risk-api.mjs runs the CLI's bundle where there are none.
COPY --from=build /app/dist ./dist
COPY prisma/migrations ./prisma/migrations
COPY bin ./bin
# DATA_DIR: the embedded database, the counter journal, the generated API-key pepper and the admin socket;
# private to the service's user (0700). Unused for data with DATABASE_URL and REDIS_URL, but the pepper file
# and the socket still live there unless API_KEY_PEPPER is set.
RUN mkdir -p /var/lib/risk-api && chown node:node /var/lib/risk-api && chmod 0700 /var/lib/risk-api
ENV HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/var/lib/risk-api \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072
USER node
VOLUME ["/var/lib/risk-api"]
EXPOSE 8080
# Ready = the database and the counter store answer (503 while starting or draining). Node's own fetch: the
# slim image has no curl. The server binds HOST, so the probe asks the loopback address.
HEALTHCHECK --interval=15s --timeout=5s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/server/main.mjs"]
