# bootsmith: one image for every role (all, image, core).
#
#   docker build -t bootsmith .                  production image: no test or demo files
#   docker build --build-arg DEMO=1 -t bootsmith-demo .   adds the bundled demo fixture ISO,
#                                                served when OS_IMAGES is not set
#
# The base image is pinned to an exact Node release (see test/packaging/dockerfile.test.ts,
# which checks these rules; no container build tool can reach a base-image registry here).
ARG NODE_IMAGE=node:20.20.2-bookworm-slim
ARG DEMO=0

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM ${NODE_IMAGE} AS runtime
# xz: the xz embed encoder (EMBED_COMPRESSION=xz) and xz-compressed payload decoding.
RUN apt-get update && apt-get install -y --no-install-recommends xz-utils ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# The web console's browser files, served as they are (src/console/console-assets.ts).
COPY console ./console
# The volume's mount point belongs to the runtime user, so the database and image cache can be written.
RUN mkdir -p /data && chown node:node /data
# Set IMAGE_SERVICE_BASE_URL and SERVICE_BASE_URL to the address BMCs and hosts reach: without
# them the service hands out the container's own address (its default route's interface).
ENV NODE_ENV=production DATA_DIR=/data LISTEN_PORT=8080
VOLUME /data
EXPOSE 8080
USER node
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.LISTEN_PORT||8080)+'/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["serve"]

# DEMO=0: the production image as is.
FROM runtime AS runtime-demo-0

# DEMO=1: plus the demo fixture ISO served when OS_IMAGES is unset.
FROM runtime AS runtime-demo-1
COPY --chown=node:node fixtures/iso/x86_64-miniso.iso ./fixtures/iso/x86_64-miniso.iso

FROM runtime-demo-${DEMO}
