// The floor under the gRPC hop: a bare node:http2 server with auth's internal certificate (mutual
// TLS, as the real hop), answering every stream with one gRPC-framed message and an OK status, in
// its own process. The gateway suite calls it the way grpc-js calls auth, so the difference between
// the two is what grpc-js's own layers cost per call.
'use strict';
const http2 = require('node:http2');
const path = require('node:path');
const { loadInternalTls } = require(path.join(__dirname, '../libs/grpc/dist'));

const tls = loadInternalTls(process.argv[2]);
// A message about the size of GetCurrentUser's answer (5-byte gRPC frame header + 160 bytes).
const message = Buffer.alloc(5 + 160, 0x61);
message.writeUInt8(0, 0);
message.writeUInt32BE(160, 1);

const server = http2.createSecureServer({ key: tls.key, cert: tls.cert, ca: tls.ca, requestCert: true, rejectUnauthorized: true });
server.on('stream', (stream) => {
  stream.on('data', () => {});
  stream.on('end', () => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(message);
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
