import { NodeSDK } from '@opentelemetry/sdk-node';

let sdk: NodeSDK | undefined;

/**
 * Starts the OpenTelemetry Node SDK when an OTLP endpoint is configured; otherwise does nothing,
 * so a laptop run exports nothing and pays nothing. The SDK reads the standard OTEL_* variables
 * (endpoint, headers, service name, sampler) itself.
 */
export function startTelemetry(serviceName: string): boolean {
  if (sdk || !process.env.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  sdk = new NodeSDK();
  sdk.start();
  return true;
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
