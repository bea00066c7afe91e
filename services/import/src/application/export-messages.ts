/** The message that starts an export's run, and the queue that carries it to a worker. */
import type { QueueDefinition } from '@crm/bus';

export const EXPORT_MESSAGE = 'export.requested.v1';

export interface ExportPayload {
  workspaceId: string;
  exportId: string;
}

/**
 * One export at a time per worker (a run streams its whole file). A worker that dies mid-run hands
 * the message back; the next delivery starts the run again from a new snapshot.
 */
export const exportQueue: QueueDefinition = { name: 'import.exports', bindings: [EXPORT_MESSAGE], maxDeliveries: 3, prefetch: 1 };
