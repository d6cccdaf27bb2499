# syntax=docker/dockerfile:1
# warpgate in a container.
#   docker build -t warpgate .
#   docker run -p 8080:8080 warpgate                       # the embedded devnet, on 0.0.0.0:8080
#   docker run -p 8080:8080 -v $PWD/config.json:/etc/warpgate/config.json:ro \
#     -e WARPGATE_CONFIG=/etc/warpgate/config.json warpgate  # a real deployment
# Any key can also be set with a WARPGATE_* environment variable (see docs/configuration.md).
# The health check asks GET /health on WARPGATE_PORT (8080 unless set): if a mounted config
# moves the port, set WARPGATE_PORT to the same value.

# Stage 1: the build. Every dependency from the lockfile, the TypeScript compiled to dist/, then
# the development dependencies (TypeScript, tsx, the test tools) pruned away, so what is left in
# node_modules is what the runtime needs.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build
# ox names TypeScript as an optional peer, so npm keeps our development copy through --omit=dev;
# nothing at run time loads it (an install of the package from the registry has none either).
RUN npm prune --omit=dev --no-audit --no-fund && rm -rf node_modules/typescript

# Stage 2: the runtime image: the compiled code and the production dependencies, nothing else (no
# sources, no compiler), read-only to the unprivileged `node` user the process runs as.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json config.example.json ./
COPY bin/warpgate.js ./bin/
USER node
EXPOSE 8080
# SIGTERM (docker stop) is a graceful shutdown: in-flight aggregations finish within
# shutdownGraceMs (10 s by default), so give `docker stop -t` at least that much.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.WARPGATE_PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "bin/warpgate.js"]
CMD ["serve"]
