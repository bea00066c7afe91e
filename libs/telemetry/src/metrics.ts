import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, register } from 'prom-client';

export { Counter, Gauge, Histogram, register as metricsRegistry };

let defaultsCollected = false;

/** Counters and histograms are process-wide; asking twice for one name returns the same metric. */
export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return (register.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames });
}

export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets?: number[]): Histogram<L> {
  return (
    (register.getSingleMetric(name) as Histogram<L> | undefined) ??
    new Histogram({ name, help, labelNames, ...(buckets ? { buckets } : {}) })
  );
}

export function gauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  collect?: (this: Gauge<L>) => Promise<void> | void,
): Gauge<L> {
  return (register.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge({ name, help, labelNames, ...(collect ? { collect } : {}) });
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves Prometheus metrics at `GET /metrics` on its own port (METRICS_PORT, 9464 by default), apart
 * from the API, so scraping needs no credential and is never rate-limited. Port -1 turns it off.
 */
export async function startMetricsServer(port: number, host = '0.0.0.0'): Promise<MetricsServer | undefined> {
  if (port < 0) return undefined;
  if (!defaultsCollected) {
    collectDefaultMetrics();
    defaultsCollected = true;
  }
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    register.metrics().then(
      (text) => res.writeHead(200, { 'content-type': register.contentType }).end(text),
      (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The metrics server of a process entry point, from METRICS_PORT: a port (default 9464), 0 for
 * any free port (the local-cluster runner, where many processes share one machine), or `off`.
 */
export interface ProcessMetricsOptions {
  /** Listen address (default every interface; `npm start` uses loopback). */
  host?: string;
  /** Called instead of failing when METRICS_PORT was left unset and the default port is taken. */
  onDefaultPortTaken?: (port: number) => void;
}

const DEFAULT_METRICS_PORT = 9464;

export async function startProcessMetrics(
  env: NodeJS.ProcessEnv = process.env,
  options: ProcessMetricsOptions = {},
): Promise<MetricsServer | undefined> {
  const raw = (env.METRICS_PORT ?? '').trim();
  if (raw === 'off') return undefined;
  const port = raw === '' ? DEFAULT_METRICS_PORT : Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`METRICS_PORT must be a port number or "off", not ${JSON.stringify(raw)}`);
  try {
    return await startMetricsServer(port, options.host);
  } catch (error) {
    if (raw !== '' || !options.onDefaultPortTaken || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    options.onDefaultPortTaken(port);
    return undefined;
  }
}
