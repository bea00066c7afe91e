// A stand-in for a Kubernetes Service in front of the replicas of one deployable when every
// container shares the host's network: one address, each new TCP connection goes to the next
// replica (round robin, as kube-proxy does), and a replica that refuses the connection (stopped,
// or draining with its listener closed) is skipped for the next one. The caller's `backends()`
// leaves out replicas told to stop, as a terminating pod leaves its Service's endpoints at once.
'use strict';
const net = require('node:net');

class ServiceProxy {
  /** `backends()` returns the replicas' ports (or `host:port` strings), read at each connection so restarts need no update. */
  constructor(name, backends) {
    this.name = name;
    this.backends = backends;
    this.next = 0;
    this.sockets = new Set();
    /** The last connections this proxy cut, and why: what a test prints when its client saw a cut. */
    this.cuts = [];
    this.server = net.createServer((client) => this.route(client));
  }

  listen(port = 0) {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.port = this.server.address().port;
        resolve(this.port);
      });
    });
  }

  get address() {
    return `127.0.0.1:${this.port}`;
  }

  route(client) {
    client.pause();
    this.track(client);
    const ports = this.backends();
    const first = this.next++ % Math.max(ports.length, 1);
    const attempt = (tried) => {
      if (tried >= ports.length || client.destroyed) {
        if (!client.destroyed) this.noteCut(`no replica took the connection (of ${ports.length})`);
        return client.destroy();
      }
      const backend = String(ports[(first + tried) % ports.length]);
      const [host, port] = backend.includes(':') ? backend.split(':') : ['127.0.0.1', backend];
      const upstream = net.connect({ host, port: Number(port) });
      upstream.once('error', () => attempt(tried + 1));
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        this.track(upstream);
        // A side that ends cleanly (a gateway closing after a `Connection: close` answer) ends the
        // other only once what it sent is written (pipe's end); destroying it at once could drop
        // the answer's last bytes, which the client would read as a connection cut mid-request.
        // A side that fails or is reset cuts the other at once, as a dead pod's connections are.
        const cut = (side, error) => {
          if (!client.destroyed || !upstream.destroyed)
            this.noteCut(`→ :${port}: the ${side} side failed${error ? ` (${error.code ?? error.message})` : ''}`);
          client.destroy();
          upstream.destroy();
        };
        // Bytes from the client with no reply since: a request under way, for the note of a clean close under it.
        let unanswered = false;
        client.on('data', () => (unanswered = true));
        upstream.on('data', () => (unanswered = false));
        upstream.on('end', () => unanswered && this.noteCut(`→ :${port}: the replica side closed (FIN) under a request`));
        upstream.on('error', (error) => cut('replica', error)).on('close', (hadError) => (hadError ? cut('replica') : client.end()));
        client.on('error', (error) => cut('client', error)).on('close', (hadError) => (hadError ? cut('client') : upstream.end()));
        upstream.pipe(client);
        client.pipe(upstream);
        client.resume();
      });
    };
    attempt(0);
  }

  noteCut(what) {
    this.cuts.push(`${new Date().toISOString()} ${this.name} ${what}`);
    if (this.cuts.length > 50) this.cuts.shift();
  }

  track(socket) {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  close() {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

module.exports = { ServiceProxy };
