import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CONSOLE_BUILD_DIR, CONSOLE_PATH } from '../console/console-location';
import type { StorageSettings } from '../storage';
import { ApiError } from './api-error';

/**
 * The console loads only its own files and talks only to this API: no inline script or style,
 * nothing from another origin, no framing. Images may also be blob: URLs (previews of selfies
 * about to be uploaded) and archived avatars on `imageOrigins` (an S3 endpoint's presigned links).
 */
export function consoleContentSecurityPolicy(imageOrigins: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' blob: ${imageOrigins.join(' ')}`.trim(),
    "connect-src 'self'",
    "font-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function secure(reply: FastifyReply, policy: string): void {
  reply.header('content-security-policy', policy);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('cross-origin-opener-policy', 'same-origin');
  reply.header('cross-origin-resource-policy', 'same-origin');
}

/**
 * The web console at /console/: the files `npm run build` bundled into dist/console, every answer
 * with a strict Content-Security-Policy. Without a build it answers 404 saying how to make one.
 */
export async function registerConsoleRoutes(
  app: FastifyInstance,
  options: { storage?: StorageSettings; dir?: string } = {},
): Promise<void> {
  const dir = options.dir ?? CONSOLE_BUILD_DIR;
  const policy = consoleContentSecurityPolicy(archiveImageOrigins(options.storage));
  app.addHook('onSend', async (request, reply) => {
    if (request.url === CONSOLE_PATH.slice(0, -1) || request.url.startsWith(CONSOLE_PATH))
      secure(reply, policy);
  });
  app.get(CONSOLE_PATH.slice(0, -1), { schema: { hide: true } }, (_request, reply) =>
    reply.redirect(CONSOLE_PATH, 301),
  );
  if (!existsSync(path.join(dir, 'index.html'))) {
    app.get(`${CONSOLE_PATH}*`, { schema: { hide: true } }, () => {
      throw new ApiError(404, 'The console is not built: run `npm run build`', []);
    });
    return;
  }
  await app.register(fastifyStatic, {
    root: dir,
    prefix: CONSOLE_PATH,
    index: 'index.html',
    decorateReply: false,
    wildcard: true,
    schemaHide: true,
    cacheControl: true,
    maxAge: 0,
  });
}

/** Presigned links of an S3 store point at its endpoint (or AWS's S3 hosts); filesystem links at the API. */
export function archiveImageOrigins(storage: StorageSettings | undefined): string[] {
  if (storage?.target.kind !== 's3') return [];
  return [storage.s3.endpoint ? new URL(storage.s3.endpoint).origin : 'https://*.amazonaws.com'];
}
