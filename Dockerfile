FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER node
EXPOSE 3000
# V8 flags: see API_NODE_FLAGS in scripts/infra/api-process.ts
CMD ["node", "--max-semi-space-size=32", "--heap-growing-percent=100", "dist/apps/api/main.js"]
