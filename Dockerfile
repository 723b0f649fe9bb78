# Build: docker build -t tabula .
# API:    docker run -p 3000:3000 -e DATABASE_URL=postgres://user:pass@host:5432/tabula tabula
# Worker: docker run --no-healthcheck -e DATABASE_URL=postgres://user:pass@host:5432/tabula tabula node dist/workers/main.js
# CLI:    docker exec -it <container> node dist/src/cli/main.js token create --email you@example.com
# All need DATABASE_URL (the embedded database is for `npm start` on one machine, not for images).

# Compiles the TypeScript sources to dist/ and the console to admin/dist (`npm run build`, with
# the dev dependencies; `npm ci` builds the console too, which bundles the typed client's sources).
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY admin ./admin
COPY client/src ./client/src
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json mikro-orm.config.ts ./
COPY src ./src
COPY workers ./workers
RUN npm run build

# Production dependencies only: no TypeScript, no tsx (the image runs compiled JavaScript).
# The console's workspace is part of the lock file; without Vite its build step skips itself.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY admin/package.json admin/build.mjs ./admin/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# The image: package.json ("type": "module" makes dist/'s .js files ES modules), the production
# dependencies, dist/ and the built console. No sources.
FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist ./dist
COPY --from=build /app/admin/dist ./admin/dist
# Uploaded files are kept under ./.data (STORAGE_DIR): the unprivileged user must be able to
# write there (mount a volume at /app/.data to keep them).
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
# slim has no curl: ask node's own fetch.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is the container's command, with no npm or shell between it and `docker stop`:
# its SIGTERM reaches the API, which stops accepting, answers in-flight requests and exits 0.
# No version-check preload: the base image fixes Node.js at 24.
CMD ["node", "--max-semi-space-size=8", "dist/src/api.js"]
