/**
 * `Expect: 100-continue` (curl sends it for bodies over 1 MB, as do .NET and some Java and Python
 * clients). Node answers `100 Continue` at once unless a `checkContinue` listener exists; with this
 * one the app runs as for any request and the 100 goes out only when something starts reading the
 * body. A request refused from its headers (401, 413 from Content-Length, 429, ...) gets its final
 * status before the client sends the body; Node then closes that connection, since the client may
 * or may not send the body it announced.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export function continueWhenBodyIsRead(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    // 'resume' is how every body reader here starts (pipe, on('data'), resume()).
    req.once('resume', () => {
      if (!res.headersSent && !res.writableEnded) res.writeContinue();
    });
    server.emit('request', req, res);
  });
}
