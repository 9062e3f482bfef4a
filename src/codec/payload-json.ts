import type { Payload } from '@temporalio/common';
import { z } from 'zod';

/**
 * Payloads as the Temporal codec server protocol sends them (protobuf JSON): metadata values and
 * data in base64. `{"payloads": [{"metadata": {"encoding": "…"}, "data": "…"}]}`
 */
const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');
export const payloadsBodySchema = z.object({
  payloads: z.array(
    z.object({
      metadata: z.record(z.string(), base64).nullish(),
      data: base64.nullish(),
    }),
  ),
});
export type PayloadsBody = z.input<typeof payloadsBodySchema>;

export function payloadsFromJson(body: z.output<typeof payloadsBodySchema>): Payload[] {
  return body.payloads.map((p) => ({
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([key, value]) => [
        key,
        new Uint8Array(Buffer.from(value, 'base64')),
      ]),
    ),
    data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
  }));
}

export function payloadsToJson(payloads: Payload[]): {
  payloads: { metadata: Record<string, string>; data: string }[];
} {
  return {
    payloads: payloads.map((p) => ({
      metadata: Object.fromEntries(
        Object.entries(p.metadata ?? {})
          .filter((entry): entry is [string, Uint8Array] => entry[1] != null)
          .map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
      ),
      data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
    })),
  };
}
