// Loaded with `node --require ./libs/telemetry/dist/register.js <entry>` so tracing starts before
// any instrumented module is imported. The service name comes from OTEL_SERVICE_NAME, or from the
// entry file's package folder.
import { basename, dirname } from 'node:path';
import { startTelemetry } from './start-telemetry';

const entry = process.argv[1] ?? 'crm';
startTelemetry(`crm-${basename(dirname(dirname(entry)))}`);
