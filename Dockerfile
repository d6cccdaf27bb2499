# syntax=docker/dockerfile:1
# warpgate in a container.
#   docker build -t warpgate .
#   docker run -p 8080:8080 warpgate                       # the embedded devnet, on 0.0.0.0:8080
#   docker run -p 8080:8080 -v $PWD/config.json:/etc/warpgate/config.json:ro \
#     -e WARPGATE_CONFIG=/etc/warpgate/config.json warpgate  # a real deployment
# Any key can also be set with a WARPGATE_* environment variable (see the README's table).
# The health check asks GET /health on WARPGATE_PORT (8080 unless set): if a mounted config
# moves the port, set WARPGATE_PORT to the same value.

# Stage 1: production dependencies only, from the lockfile. tsx (a production dependency) runs the
# TypeScript sources, so there is no build step and no dev dependency in the image.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# Stage 2: the runtime image: node_modules from stage 1 and the sources, read-only to the
# unprivileged `node` user the process runs as.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY config.example.json ./
USER node
EXPOSE 8080
# SIGTERM (docker stop) is a graceful shutdown: in-flight aggregations finish within
# shutdownGraceMs (10 s by default), so give `docker stop -t` at least that much.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.WARPGATE_PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "bin/warpgate.js"]
CMD ["serve"]
