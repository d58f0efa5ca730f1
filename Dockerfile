# syntax=docker/dockerfile:1

# ---- build: all dependencies, compile TypeScript to dist/ ----------------------------------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app

# patches/: applied to node_modules by npm ci's postinstall (patch-package).
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund

COPY tsconfig.json tsconfig.build.json ./
# tools/openapi-metadata.mjs writes src/metadata.ts (the OpenAPI metadata of the DTOs) before tsc.
COPY tools ./tools
COPY src ./src
COPY projections ./projections
COPY dashboard ./dashboard
# Besides dist/, keep the files the build does not emit but the server reads at run time relative to the project
# root (numbered .sql migrations under src/database/migrations, src/database/index-migrations and
# projections/migrations, other non-TS assets).
RUN npm run build \
  && mkdir -p /assets \
  && find src projections -type f ! -name '*.ts' -exec cp --parents {} /assets/ \;

# ---- runtime: production dependencies only -------------------------------------------------------------------
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /app

COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund \
  && npm cache clean --force
# tini as PID 1: the kernel ignores a SIGKILL that PID 1 sends itself, so without an init the event-loop watchdog
# could not end a wedged server for its supervisor to restart (and signals would not reach node as expected).
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*

COPY --from=build /app/dist ./dist
COPY --from=build /assets/ ./
# DATA_DIR (default ./data) holds embedded mode's files; it must be writable by the unprivileged user.
RUN mkdir -p /app/data && chown node:node /app/data

USER node
EXPOSE 3000
ENTRYPOINT ["/usr/bin/tini", "-s", "--"]
CMD ["node", "dist/src/main.js"]
