FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No package's install script runs: nothing the app loads needs one (a native build, a download).
RUN npm ci --no-audit --no-fund --ignore-scripts
# .dockerignore keeps the host's node_modules, dist, .git, .infra, .env and reports out of this copy.
COPY . .
# dependencies are exactly what dist/apps/api loads (test/e2e/runtime-dependencies.e2e-spec.ts).
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER node
# 3000: the API; 9464: /metrics and /health/details (METRICS_PORT), for the internal network only.
EXPOSE 3000 9464
# Liveness: answers while the process serves, whatever Postgres and Redis do (restarting the
# container would not bring them back). No curl in the slim image: Node's own fetch.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# V8 flags: see API_NODE_FLAGS in scripts/infra/api-process.ts.
# Migrations from the image: `docker run --rm -e DATABASE_URL=... <image> node dist/apps/api/main.js migrate`.
CMD ["node", "--max-semi-space-size=32", "--heap-growing-percent=100", "dist/apps/api/main.js"]
