# One image for every Switchyard service (one tag); docker-compose.yml picks the service by its
# command, `node --import tsx services/<name>/src/main.ts`. No build step: tsx runs the
# TypeScript, so it is a runtime dependency (every service's package.json lists it).
#
#   manifests  every package.json and the lock, alone: the installs below are rebuilt only
#              when one of them changes, not on every change to the sources
#   deps       the full install, to generate the Prisma client (the Prisma CLI is a dev tool) and
#              build the web UI (Vite is a dev tool)
#   runtime    production dependencies, the sources and the generated client; no dev
#              dependencies, no embedded PostgreSQL, no Prisma CLI

FROM node:20-bookworm-slim AS manifests
WORKDIR /src
COPY . .
# Found rather than listed, so that a new lib or service needs no change here.
RUN mkdir /manifests \
  && find . -name package.json -not -path '*/node_modules/*' -exec cp --parents '{}' /manifests/ ';' \
  && cp package-lock.json /manifests/

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
# --ignore-scripts: nothing here needs an install script (Prisma runs on its driver adapter and
# WebAssembly, esbuild works without its check), as on the development machines.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY prisma ./prisma
COPY prisma.config.ts ./
COPY scripts/prisma-generate.mjs ./scripts/
RUN npm run db:generate
# The web UI (decision 0029): built here with the dev dependencies (Vite), served by the gateway.
COPY services/gateway/ui ./services/gateway/ui
# The one contracts module the page bundles (it imports nothing): the audit kinds (decision 0040).
COPY libs/contracts/src/audit-kinds.ts ./libs/contracts/src/
COPY scripts/build-ui.mjs ./scripts/
RUN npm run ui:build

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
COPY --from=manifests /manifests/ ./
# --omit=optional too: --omit=dev alone keeps the Prisma CLI (with TypeScript, Studio and
# PGlite), an optional peer of @prisma/client. That drops esbuild's platform binary as well,
# the one optional package the services need (tsx compiles with it): it comes from deps.
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
  && npm cache clean --force
COPY --from=deps /app/node_modules/@esbuild ./node_modules/@esbuild
COPY . .
COPY --from=deps /app/libs/db/src/generated ./libs/db/src/generated
COPY --from=deps /app/services/gateway/ui/dist ./services/gateway/ui/dist

ENV NODE_ENV=production
# The sources stay owned by root and read-only to the services.
USER node
CMD ["node", "--import", "tsx", "services/gateway/src/main.ts"]
