import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Browser access tokens: read-only, for one run, expiring. Self-contained and stateless, so any API
 * process with the same key verifies them and nothing is stored:
 *
 *   at1.<payload>.<mac>   payload = base64url(JSON { t: tenant, k: kind, r: run, e: expiry, a? })
 *                         mac     = base64url(HMAC-SHA256(key, "at1." + payload))
 *
 * `r` is a digest of the run's id, not the id: workflow ids are chosen by callers and may say who a
 * run is for, and the payload is only encoded, not encrypted. `e` is the expiry in Unix seconds.
 * `a: "review"` marks a review link's token: it may also send decisions on its run's review.
 * The API's own tokens are never in it, nor anything about the person.
 */

/** What an access token covers: a pipeline (GET /v1/pipelines/{id}…) or a campaign (GET /v1/campaigns/{id}…). */
export type RunKind = 'pipeline' | 'campaign';

export interface AccessGrant {
  tenant: string;
  kind: RunKind;
  runId: string;
  expiresAtMs: number;
  /** A review link: the token may also decide on the run's review (POST …/review). */
  review?: boolean;
}

/** What a verified token says; the run only as the digest `covers` compares with. */
export interface AccessClaims {
  tenant: string;
  kind: RunKind;
  runDigest: string;
  expiresAtMs: number;
  review: boolean;
}

export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 3600;
export const MAX_ACCESS_TOKEN_TTL_SECONDS = 86_400;
/** A review link lasts as long as a review's default deadline, and at most as long as the longest one. */
export const DEFAULT_REVIEW_LINK_TTL_SECONDS = 72 * 3600;
export const MAX_REVIEW_LINK_TTL_SECONDS = 7 * 86_400;

const PREFIX = 'at1.';
/** Longer than any token this module makes (a 40-character tenant, its JSON, two base64 parts). */
const MAX_TOKEN_LENGTH = 512;

const base64url = (bytes: Buffer) => bytes.toString('base64url');
const runDigestOf = (kind: RunKind, runId: string) =>
  base64url(createHash('sha256').update(`${kind}\n${runId}`, 'utf8').digest().subarray(0, 16));

export class AccessTokenSigner {
  private readonly key: Buffer;

  /** `secret`: API_ACCESS_TOKEN_SECRET; without one, a random key that dies with the process. */
  constructor(secret: string | Buffer | undefined) {
    // A key of its own, derived, so the secret is never used as is for anything else.
    this.key = createHmac('sha256', secret ?? randomBytes(32))
      .update('avatar-pipeline access token v1')
      .digest();
  }

  /** The token and its expiry (`grant.expiresAtMs` down to the second, as the token holds it). */
  mint(grant: AccessGrant): { token: string; expiresAtMs: number } {
    const expiry = Math.floor(grant.expiresAtMs / 1000);
    const payload = base64url(
      Buffer.from(
        JSON.stringify({
          t: grant.tenant,
          k: grant.kind,
          r: runDigestOf(grant.kind, grant.runId),
          e: expiry,
          ...(grant.review ? { a: 'review' } : {}),
        }),
        'utf8',
      ),
    );
    return { token: `${PREFIX}${payload}.${this.mac(payload)}`, expiresAtMs: expiry * 1000 };
  }

  /** The claims of a token this key signed that has not expired at `nowMs`; undefined for anything else. */
  verify(token: string, nowMs = Date.now()): AccessClaims | undefined {
    const claims = this.read(token);
    return claims && claims.expiresAtMs > nowMs ? claims : undefined;
  }

  /**
   * The claims of a token this key signed, expired or not; undefined for anything else. The API
   * answers an expired token as it answers a run the token does not cover, so it must tell an
   * expired token from a forged one.
   */
  read(token: string): AccessClaims | undefined {
    if (token.length > MAX_TOKEN_LENGTH || !token.startsWith(PREFIX)) return undefined;
    const [payload, mac, ...rest] = token.slice(PREFIX.length).split('.');
    if (payload === undefined || mac === undefined || rest.length > 0) return undefined;
    const expected = Buffer.from(this.mac(payload), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    const { t, k, r, e, a } = (claims ?? {}) as Record<string, unknown>;
    if (typeof t !== 'string' || (k !== 'pipeline' && k !== 'campaign') || typeof r !== 'string')
      return undefined;
    if (typeof e !== 'number' || !Number.isFinite(e)) return undefined;
    if (a !== undefined && a !== 'review') return undefined;
    return { tenant: t, kind: k, runDigest: r, expiresAtMs: e * 1000, review: a === 'review' };
  }

  private mac(payload: string): string {
    return base64url(createHmac('sha256', this.key).update(`${PREFIX}${payload}`, 'utf8').digest());
  }
}

/** Whether verified claims cover the run `runId` of `kind`. */
export function covers(claims: AccessClaims, kind: RunKind, runId: string): boolean {
  return claims.kind === kind && claims.runDigest === runDigestOf(kind, runId);
}

/** A request URL fit for logs: the value of any `access_token` query parameter replaced. */
export function redactAccessToken(url: string): string {
  return url.replace(/([?&]access_token=)[^&#]*/gi, '$1[redacted]');
}
