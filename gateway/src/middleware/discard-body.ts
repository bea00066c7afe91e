/**
 * A request answered before its body was read (a 413 from Content-Length, say) keeps its connection
 * open while the client sends the rest, which is read and thrown away: a client that reads the answer
 * only after sending (Node's fetch, for one) would otherwise see the connection cut (EPIPE) and never
 * the answer. Past `maxBytes` the connection is closed; by then the answer has long been delivered.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function discardBodyAfterAnswer(req: IncomingMessage, res: ServerResponse, maxBytes: number): void {
  res.once('finish', () => {
    if (req.complete) return;
    let discarded = 0;
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > maxBytes) req.socket.destroy();
    });
    req.resume();
  });
}
