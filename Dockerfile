FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm install rather than npm ci: lock files written without registry URLs are refused by npm ci.
RUN npm install --no-fund --no-audit
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src src
COPY migrations migrations
COPY bench bench
# The benchmarks reuse the scripted LLM server of the tests.
COPY test/support/fake-llm-server.ts test/support/fake-llm-server.ts
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends bash git ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data WORKSPACE_ROOT=/data/workspaces
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
CMD ["node", "dist/src/main.js"]
