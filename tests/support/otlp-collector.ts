import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CollectedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: number;
}

/**
 * An in-memory trace exporter for processes the test does not own: an OTLP/HTTP (JSON) receiver
 * on loopback that every process of the cluster exports to, keeping the spans for assertions.
 */
export class OtlpCollector {
  readonly spans: CollectedSpan[] = [];
  private server!: Server;

  static async start(): Promise<OtlpCollector> {
    const collector = new OtlpCollector();
    collector.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url === '/v1/traces') collector.collect(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.server.listen(0, '127.0.0.1', resolve));
    return collector;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Environment that makes a process export its spans here, quickly. */
  get env(): Record<string, string> {
    return {
      OTEL_EXPORTER_OTLP_ENDPOINT: this.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_TRACES_SAMPLER: 'always_on',
    };
  }

  private collect(body: string): void {
    const request = JSON.parse(body) as {
      resourceSpans?: {
        resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
        scopeSpans?: { spans?: { name: string; traceId: string; spanId: string; parentSpanId?: string; kind: number }[] }[];
      }[];
    };
    for (const resourceSpans of request.resourceSpans ?? []) {
      const service = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? 'unknown';
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            name: span.name,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            kind: span.kind,
          });
        }
      }
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
