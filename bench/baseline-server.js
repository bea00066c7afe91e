// The baseline every gateway figure is divided by: a bare Express 5 JSON handler over HTTPS with
// the same certificate, in its own process, on the same machine, in the same run.
'use strict';
const https = require('node:https');
const fs = require('node:fs');
const express = require('express');

const [certFile, keyFile] = process.argv.slice(2);
const app = express();
app.get('/api/auth/me/', (_req, res) => {
  res.json({ id: 'usr_baseline', email: 'baseline@example.com', firstName: 'Base', lastName: 'Line', workspaceId: 'ws_baseline' });
});
const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, app);
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
