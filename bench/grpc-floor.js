// The floor of the gateway's own stack (issue 34): a bare Express 5 HTTPS handler that makes one
// grpc-js unary call, with the same mutual TLS as the gateway's, to a bare grpc-js server answering
// a fixed user. Nothing of ours is on the path: no authentication, rate limit, logging, trace ids,
// metrics or error mapping, and none of libs/grpc's client or server layers (only its proto
// loading options and certificate folders, so the bytes on the wire are the same as the product's).
'use strict';
const fs = require('node:fs');
const https = require('node:https');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const express = require('express');

const ROOT = path.resolve(__dirname, '..');
const { loadInternalTls, loadService } = require(path.join(ROOT, 'libs/grpc/dist'));

const FIXED_USER = {
  id: 'usr_floor000000000000000000',
  workspaceId: 'ws_floor0000000000000000000',
  email: 'floor@example.com',
  firstName: 'Floor',
  lastName: 'User',
  role: 'admin',
  createdAt: '2026-11-01T00:00:00.000Z',
};

/** A bare grpc-js server on `address` (host:port, or unix:path) with auth's certificate; resolves to the bound address. */
function startFloorGrpcServer({ tlsDir, address }) {
  const tls = loadInternalTls(tlsDir);
  const server = new grpc.Server();
  const AuthService = loadService('auth/v1/auth.proto', 'auth.v1.AuthService');
  server.addService(AuthService.service, { GetCurrentUser: (_call, callback) => callback(null, FIXED_USER) });
  const credentials = grpc.ServerCredentials.createSsl(tls.ca, [{ private_key: tls.key, cert_chain: tls.cert }], true);
  return new Promise((resolve, reject) =>
    server.bindAsync(address, credentials, (error, port) => {
      if (error) return reject(error);
      resolve({ address: address.startsWith('unix:') ? address : `127.0.0.1:${port}`, server });
    }),
  );
}

/**
 * A bare Express 5 app over HTTPS whose GET /api/auth/me/ and GET /api/contacts/:id/ each make one
 * GetCurrentUser call as the gateway would (its certificate, the caller metadata) and answer it as JSON.
 */
function startFloorHttps({ certFile, keyFile, grpcAddress, clientTlsDir }) {
  const tls = loadInternalTls(clientTlsDir);
  const AuthService = loadService('auth/v1/auth.proto', 'auth.v1.AuthService');
  const client = new AuthService(grpcAddress, grpc.credentials.createSsl(tls.ca, tls.key, tls.cert), {
    'grpc.ssl_target_name_override': 'auth',
    'grpc.default_authority': 'auth',
  });
  const app = express();
  const handler = (_req, res, next) => {
    const metadata = new grpc.Metadata();
    metadata.set('x-crm-workspace-id', FIXED_USER.workspaceId);
    metadata.set('x-crm-actor-id', FIXED_USER.id);
    metadata.set('x-crm-actor-kind', 'user');
    metadata.set('x-crm-request-id', 'floor');
    client.GetCurrentUser({}, metadata, { deadline: Date.now() + 5000 }, (error, user) => (error ? next(error) : res.json(user)));
  };
  app.get('/api/auth/me/', handler);
  app.get('/api/contacts/:id/', handler);
  const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, app);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, server, client })));
}

module.exports = { FIXED_USER, startFloorGrpcServer, startFloorHttps };
