import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createStorageActivities } from '../../activities/storage-activities';
import type { AddressRules } from '../../src/outbound/checked-fetch';
import {
  archiveAvatar,
  avatarAddressRules,
  AvatarRejectedError,
  FsBlobStore,
  subjectPrefix,
} from '../../src/storage';
import { startTestHttpServer, type TestHttpServer } from '../fixtures/http-test-server';
import { tinyPng } from '../fixtures/images';

/*
 * Avatar URLs are the provider's word, and archiving must not follow them anywhere (a redirect to
 * 127.0.0.1, say). `provider` plays the provider's image host; `inside` is a
 * service in the worker's network that no avatar URL may reach. Each row of the matrix gives the
 * address rules the worker would have and the URL the provider gave; every refusal is an
 * AvatarRejected failure (retrying cannot help) and leaves `inside` untouched and nothing stored.
 */

const root = mkdtempSync(path.join(tmpdir(), 'avatar-archive-security-'));
const store = new FsBlobStore(root);
const owner = subjectPrefix('default', 'subject-ssrf');
const png = tinyPng(8, 8);
let provider: TestHttpServer;
let inside: TestHttpServer;
let avatarId = 0;

beforeAll(async () => {
  inside = await startTestHttpServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'image/png' }).end(png),
  );
  provider = await startTestHttpServer();
});
afterAll(async () => {
  await provider.close();
  await inside.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  inside.requests.length = 0;
  provider.handle((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
});

const port = (server: TestHttpServer) => new URL(server.origin).port;
/** The provider configured by name: PROVIDER_BASE_URL=http://localhost:<port>, so 127.0.0.1 is not trusted. */
const providerByName = () => `http://localhost:${port(provider)}`;
const publicLookup: AddressRules['lookup'] = async () => [{ address: '93.184.216.34', family: 4 }];

function archive(sourceUrl: string, rules: AddressRules) {
  avatarId += 1;
  return archiveAvatar(store, { owner, ids: { modelId: 1, orderId: 2, avatarId }, sourceUrl }, rules, {
    maxBytes: 1024 * 1024,
    timeoutMs: 2_000,
  });
}

interface RefusedRow {
  name: string;
  setup?: () => void;
  sourceUrl: () => string;
  rules: () => AddressRules;
  message: RegExp;
}

const REFUSED: RefusedRow[] = [
  {
    name: "a 302 from the provider's own host to 127.0.0.1",
    setup: () =>
      provider.handle((_req, res) => res.writeHead(302, { location: `${inside.origin}/secret.png` }).end()),
    sourceUrl: () => `${providerByName()}/__sim/images/1/1.png`,
    rules: () => avatarAddressRules(providerByName()),
    message: /redirects elsewhere \(HTTP 302\); redirects are not followed/,
  },
  {
    name: 'a 307 back to the same trusted host (no redirect is followed)',
    setup: () => provider.handle((_req, res) => res.writeHead(307, { location: '/elsewhere.png' }).end()),
    sourceUrl: () => `${providerByName()}/a.png`,
    rules: () => avatarAddressRules(providerByName()),
    message: /redirects elsewhere \(HTTP 307\)/,
  },
  {
    name: "the provider's host on another port (another service beside it)",
    sourceUrl: () => `http://localhost:${port(inside)}/secret.png`,
    rules: () => ({
      ...avatarAddressRules(providerByName()),
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    }),
    message: /host "localhost" resolves to a private address; list the host in AVATAR_PRIVATE_HOSTS/,
  },
  {
    name: "the provider's host and port with another scheme",
    sourceUrl: () => `https://localhost:${port(provider)}/a.png`,
    rules: () => ({
      ...avatarAddressRules(providerByName()),
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    }),
    message: /host "localhost" resolves to a private address/,
  },
  {
    name: 'an avatar URL naming 127.0.0.1 when the provider is elsewhere',
    sourceUrl: () => `${inside.origin}/a.png`,
    rules: () => avatarAddressRules('https://provider.example.test/rest/api'),
    message: /points at a private address \(127\.0\.0\.1\); list the host in AVATAR_PRIVATE_HOSTS/,
  },
  {
    name: 'an avatar URL naming a documentation address (192.0.2.2)',
    sourceUrl: () => 'http://192.0.2.2/a.png',
    rules: () => avatarAddressRules('https://provider.example.test'),
    message: /private address \(192\.0\.2\.2\)/,
  },
  {
    name: 'an avatar URL naming the metadata address as IPv4-mapped IPv6',
    sourceUrl: () => 'http://[::ffff:a9fe:a9fe]/latest/meta-data',
    rules: () => avatarAddressRules('https://provider.example.test'),
    message: /private address/,
  },
  {
    name: 'a host that resolves to a private address',
    sourceUrl: () => `http://cdn.provider.example.test:${port(inside)}/a.png`,
    rules: () => ({
      ...avatarAddressRules('https://provider.example.test'),
      lookup: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    }),
    message: /host "cdn\.provider\.example\.test" resolves to a private address;/,
  },
  {
    name: 'a file: URL',
    sourceUrl: () => 'file:///etc/passwd',
    rules: () => avatarAddressRules('https://provider.example.test'),
    message: /must be an http\(s\) URL/,
  },
];

describe('archiving refuses avatar URLs that lead into the worker network', () => {
  it.each(REFUSED.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    row.setup?.();
    const err: unknown = await archive(row.sourceUrl(), row.rules()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AvatarRejectedError);
    expect((err as Error).message).toMatch(row.message);
    expect(inside.requests).toEqual([]);
    expect(await store.list(owner)).toEqual([]);
  });

  it('connects to the address that was checked, not to a second DNS answer', async () => {
    // The check hears a public address; the system resolver says 127.0.0.1 for "localhost".
    const attempt = archive(`http://localhost:${port(inside)}/a.png`, {
      ...avatarAddressRules('https://provider.example.test'),
      lookup: publicLookup,
    });
    await expect(attempt).rejects.toThrow();
    expect(inside.requests).toEqual([]);
  });

  it('the activity fails for good (AvatarRejected) on a redirect', async () => {
    provider.handle((_req, res) => res.writeHead(302, { location: `${inside.origin}/secret.png` }).end());
    const activities = createStorageActivities({ store, rules: avatarAddressRules(providerByName()) });
    const err: unknown = await new MockActivityEnvironment()
      .run(activities.archiveAvatar, {
        tenant: 'default',
        pipelineId: 'wf-ssrf',
        modelId: 1,
        orderId: 2,
        avatarId: 99,
        sourceUrl: `${providerByName()}/a.png`,
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'AvatarRejected', nonRetryable: true });
    expect(inside.requests).toEqual([]);
  });
});

describe("archiving still downloads from the provider's host and listed hosts", () => {
  it("downloads from PROVIDER_BASE_URL's host, even on loopback", async () => {
    const archived = await archive(
      `${providerByName()}/__sim/images/1/1.png`,
      avatarAddressRules(providerByName()),
    );
    expect(archived).toMatchObject({ bytes: png.length, contentType: 'image/png', alreadyArchived: false });
  });

  it('downloads from a private host listed in AVATAR_PRIVATE_HOSTS', async () => {
    const archived = await archive(
      `${inside.origin}/a.png`,
      avatarAddressRules('https://provider.example.test', ['127.0.0.1']),
    );
    expect(archived.bytes).toBe(png.length);
    expect(inside.requests).toHaveLength(1);
  });

  it('downloads from a public host, connecting to the address its check resolved', async () => {
    // The lookup stands in for DNS: "cdn.example.test" resolves (for the check) to the address the
    // download then connects to; listing that address lets this test reach it on loopback.
    const archived = await archive(`http://cdn.example.test:${port(inside)}/a.png`, {
      trustedHosts: ['provider.example.test'],
      allowedPrivateAddresses: ['127.0.0.1'],
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(archived.bytes).toBe(png.length);
    expect(inside.requests.map((r) => r.headers.host)).toEqual([`cdn.example.test:${port(inside)}`]);
  });
});
