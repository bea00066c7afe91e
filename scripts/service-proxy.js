// A stand-in for a Kubernetes Service in front of the replicas of one deployable when every
// container shares the host's network: one address, each new TCP connection goes to the next
// replica (round robin, as kube-proxy does), and a replica that refuses the connection (stopped,
// or draining with its listener closed) is skipped for the next one. The caller's `backends()`
// leaves out replicas told to stop, as a terminating pod leaves its Service's endpoints at once.
'use strict';
const net = require('node:net');

class ServiceProxy {
  /** `backends()` returns the replicas' ports, read at each connection so restarts need no update. */
  constructor(name, backends) {
    this.name = name;
    this.backends = backends;
    this.next = 0;
    this.sockets = new Set();
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
      if (tried >= ports.length || client.destroyed) return client.destroy();
      const upstream = net.connect({ host: '127.0.0.1', port: ports[(first + tried) % ports.length] });
      upstream.once('error', () => attempt(tried + 1));
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        this.track(upstream);
        // A side that ends cleanly (a gateway closing after a `Connection: close` answer) ends the
        // other only once what it sent is written (pipe's end); destroying it at once could drop
        // the answer's last bytes, which the client would read as a connection cut mid-request.
        // A side that fails or is reset cuts the other at once, as a dead pod's connections are.
        const cut = () => {
          client.destroy();
          upstream.destroy();
        };
        upstream.on('error', cut).on('close', (hadError) => (hadError ? cut() : client.end()));
        client.on('error', cut).on('close', (hadError) => (hadError ? cut() : upstream.end()));
        upstream.pipe(client);
        client.pipe(upstream);
        client.resume();
      });
    };
    attempt(0);
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
