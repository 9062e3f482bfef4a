# The package image: worker, starter API, simulator and CLI are the same image with different commands.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json ./packages/client/
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
# The client package (an npm workspace the platform imports), built first by npm run build.
COPY packages/client/tsconfig.build.json ./packages/client/
COPY packages/client/src ./packages/client/src
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY worker.ts ./
COPY scripts/build-workflow-bundles.ts scripts/build-console.ts ./scripts/
# The web console's sources: bundled into dist/console by the build, served by the starter API.
COPY console ./console
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
# Memory settings (docs/operations.md, "Worker memory"; bench/scale.ts measures the worker with
# them): jemalloc instead of glibc's malloc (with 1,000 pipelines open a worker peaked at 352 MB on
# it against 458 MB on glibc's, same run), linked at one path on every architecture; two glibc
# malloc arenas instead of up to eight per core, for a process started without the preload; V8
# young generations of 2 MB per semi-space instead of up to 16 MB. `--heap-growing-percent=30` (in
# ENTRYPOINT: Node refuses it in NODE_OPTIONS) lets V8's old generation grow by 30% of what a full
# collection kept before the next one, instead of a factor V8 picks itself. `--optimize-for-size`
# also keeps the heap small, for more CPU: with 1,000 pipelines open 231-269 s against 205 s, for
# 20-40 MB less RSS (bench/RESULTS.md).
RUN apt-get update \
  && apt-get install -y --no-install-recommends libjemalloc2 \
  && rm -rf /var/lib/apt/lists/* \
  && ln -s "$(find /usr/lib -name libjemalloc.so.2 | head -n 1)" /usr/local/lib/libjemalloc.so.2
ENV LD_PRELOAD=/usr/local/lib/libjemalloc.so.2
ENV MALLOC_ARENA_MAX=2
ENV NODE_OPTIONS=--max-semi-space-size=2
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
# node_modules/@avatar-pipeline/client links here.
COPY --from=build /app/packages/client/package.json ./packages/client/
COPY --from=build /app/packages/client/dist ./packages/client/dist
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# Volumes mounted here (selfies, campaign manifests) start out owned by the user the processes run as.
RUN mkdir -p /data/selfies /data/blobs /data/campaigns && chown -R node:node /data
USER node
# worker metrics, starter API, codec server, simulator
EXPOSE 9464 8080 8888 4010
ENTRYPOINT ["node", "--heap-growing-percent=30", "bin/avatar-pipeline.js"]
CMD ["worker"]
