# One image for every Switchyard service; docker-compose.yml picks the service by its command.
# No build step: the TypeScript sources run with tsx, as in development.
FROM node:20-bookworm-slim

WORKDIR /app

# The whole context (.dockerignore keeps host node_modules, .data and .git out): npm ci needs
# every workspace's package.json, and copying them one by one would break with each new lib.
COPY . .
# --ignore-scripts: nothing here needs an install script (Prisma runs on its driver adapter and
# WebAssembly, esbuild works without its check), and the image then builds the same way as
# the development machines, where npm runs no install scripts.
RUN npm ci --ignore-scripts --no-audit --no-fund \
  && npm run db:generate \
  && npm cache clean --force

ENV NODE_ENV=production
# The sources stay owned by root and read-only to the services.
USER node
CMD ["node", "--import", "tsx", "services/gateway/src/main.ts"]
