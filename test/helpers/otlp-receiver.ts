import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes?: OtlpAttribute[];
      }[];
    }[];
  }[];
}

/** A stand-in OpenTelemetry collector: takes OTLP/HTTP JSON on /v1/traces and keeps the spans. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every request body as received, for scanning for things that must not be exported. */
  readonly bodies: string[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const receiver: OtlpReceiver = new OtlpReceiver(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          if (req.method !== 'POST' || req.url !== '/v1/traces') {
            res.writeHead(404).end();
            return;
          }
          const body = Buffer.concat(chunks).toString('utf8');
          receiver.bodies.push(body);
          receiver.take(JSON.parse(body) as OtlpTraces);
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
      }),
    );
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private take(traces: OtlpTraces): void {
    for (const resourceSpans of traces.resourceSpans ?? []) {
      const service = attributesOf(resourceSpans.resource?.attributes)['service.name'];
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          this.spans.push({
            service: String(service),
            name: span.name,
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            attributes: attributesOf(span.attributes),
          });
    }
  }
}

function attributesOf(attributes: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(
    attributes.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue]),
  );
}
