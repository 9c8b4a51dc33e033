# bootsmith: one image for every role (all, image, core).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
# xz: the xz embed encoder (EMBED_COMPRESSION=xz) and xz-compressed payload decoding.
RUN apt-get update && apt-get install -y --no-install-recommends xz-utils ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY fixtures/iso ./fixtures/iso
ENV NODE_ENV=production DATA_DIR=/data LISTEN_PORT=8080
VOLUME /data
EXPOSE 8080
USER node
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["serve"]
