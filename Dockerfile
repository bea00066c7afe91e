# Every deployable's image, from one build. Build one from the repository root by its target:
#   podman build --network=host --pull=never --target records -t crm-records .
# (skaffold.yaml builds each with `docker.target`). The monorepo compiles once and its native
# modules (argon2, better-sqlite3) compile once; the five runtime images share every layer but
# their CMD, so a node pulls the code and dependencies once for all of them.
# /app mirrors the repository layout, so the workspace links in node_modules/@crm/* and the walk up
# to proto/ in @crm/grpc resolve as they do in a checkout.

ARG NODE_IMAGE=node:24-bookworm-slim

# Node with a compiler: argon2 and better-sqlite3 build from source when no prebuilt binary fits.
FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app

# Every workspace's package.json, in place: npm ci checks the whole workspace tree against the
# lockfile. Copied on their own so that a source change does not invalidate the install layer.
FROM toolchain AS manifests
COPY libs libs
COPY services services
COPY gateway gateway
RUN mkdir /manifests \
 && find libs services gateway -name package.json -not -path '*/node_modules/*' -exec cp --parents {} /manifests/ \;

# The one install (native modules compile here) and the one compile of every workspace.
# `npm ci`: exactly the committed lock; package.json's allowScripts lets argon2's and better-sqlite3's
# install scripts run and no others (docs/development.md).
FROM toolchain AS build
COPY package.json package-lock.json ./
COPY --from=manifests /manifests/ ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY proto proto
COPY libs libs
COPY services services
COPY gateway gateway
RUN npx tsc --build tsconfig.build.json

# Production dependencies only: prune removes the dev tree without compiling anything again. /out
# holds what runs: dependencies, proto/, and each workspace's package.json and dist/. Of
# better-sqlite3's compile only the addon stays (its objects and SQLite's sources were 28 MB).
FROM build AS production
RUN npm prune --omit=dev --no-audit --no-fund \
 && mkdir /out \
 && cp -a package.json node_modules proto /out/ \
 && for pkg in libs/* services/* gateway; do \
      mkdir -p "/out/$pkg" && cp -a "$pkg/package.json" "$pkg/dist" "/out/$pkg/" \
      && if [ -d "$pkg/node_modules" ]; then cp -a "$pkg/node_modules" "/out/$pkg/"; fi; \
    done \
 && find /out -name '*.tsbuildinfo' -delete \
 && sqlite=/out/node_modules/better-sqlite3 \
 && mv "$sqlite/build/Release/better_sqlite3.node" /tmp/ \
 && rm -rf "$sqlite/build" "$sqlite/deps" "$sqlite/src" \
 && mkdir -p "$sqlite/build/Release" && mv /tmp/better_sqlite3.node "$sqlite/build/Release/"

# No compiler, no dev dependencies, not root. The root filesystem may be read-only: stores write
# under /app/data (mount a volume there) and nothing else is written outside /tmp.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    CRM_DATA_DIR=/app/data
WORKDIR /app
COPY --from=production /out ./
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME /app/data
# No HEALTHCHECK: Kubernetes probes the processes (GET /readyz; the gRPC health checking protocol).
# Every service starts Node this one way (docs/containers.md says why these heap options): each
# target's CMD names only its program, and the chart's workers add only their role (args).
ENTRYPOINT ["node", "--max-semi-space-size=16", "--heap-growing-percent=50", "--require", "./libs/telemetry/dist/register.js"]

FROM runtime AS gateway
EXPOSE 8443 9464
CMD ["gateway/dist/main.js"]

FROM runtime AS auth
EXPOSE 50051 9464
CMD ["services/auth/dist/main.js"]

FROM runtime AS records
EXPOSE 50052 9464
CMD ["services/records/dist/main.js"]

# The import server by default; the workers run the same image with `--role=worker`.
FROM runtime AS import
EXPOSE 50053 8081 9464
CMD ["services/import/dist/main.js"]

# The automation server by default; the workers run the same image with `--role=worker`.
FROM runtime AS automation
EXPOSE 50054 9464
CMD ["services/automation/dist/main.js"]
