# The package image: worker, starter API, simulator and CLI are the same image with different commands.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY worker.ts ./
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
# Two glibc malloc arenas instead of up to eight per core, for every process of the image from its
# start (the worker sets the same limit on itself, but only once it runs; README, "Worker memory").
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# Volumes mounted here (selfies, campaign manifests) start out owned by the user the processes run as.
RUN mkdir -p /data/selfies/uploads /data/campaigns && chown -R node:node /data
USER node
# worker metrics, starter API, codec server, simulator
EXPOSE 9464 8080 8888 4010
ENTRYPOINT ["node", "bin/avatar-pipeline.js"]
CMD ["worker"]
