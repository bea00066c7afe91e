// What the bench suites share: a JSON client for a cluster's gateway, a workspace whose rate limit
// stays out of the way, a warning when a cluster process died during a run, and the run's internal
// certificates for calling services directly as one of its identities, and a CSV import's upload.
'use strict';
const { execFile } = require('node:child_process');
const path = require('node:path');
const { promisify } = require('node:util');
const { request } = require('undici');

const ROOT = path.resolve(__dirname, '..');

/** `api(method, path, body?, token?)`: JSON in and out through the cluster's first gateway; throws on a status ≥ 300. */
function gatewayApi(cluster, agent) {
  return async (method, p, body, token) => {
    const res = await request(`${cluster.gateways[0].url}${p}`, {
      method,
      dispatcher: agent,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${p} → ${res.statusCode} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/** Signs up a new workspace and moves it to the enterprise plan with a limit no bench reaches; returns the sign-up answer. */
async function signUpUnlimited(cluster, api, name) {
  const signup = await api('POST', '/api/auth/signup/', {
    workspaceName: `Bench ${name}`,
    email: `bench-${name}-${Date.now()}@example.com`,
    password: 'bench-password-123',
    firstName: 'Bench',
    lastName: 'Mark',
  });
  // Asynchronous: with --target containers the auth Service stand-in the CLI dials runs in this process.
  await promisify(execFile)(
    process.execPath,
    [
      path.join(ROOT, 'services/auth/dist/cli.js'),
      'change-plan',
      '--workspace',
      signup.user.workspaceId,
      '--plan',
      'enterprise',
      '--rate-limit',
      '100000000',
    ],
    {
      // `npm start` tells the CLI where it runs through its CRM_DATA_DIR (auth-address, operator token and certificate).
      env:
        cluster.target === 'npm start'
          ? { ...process.env, CRM_DATA_DIR: cluster.dataDir }
          : {
              ...process.env,
              AUTH_GRPC_ADDR: cluster.authAddress,
              CRM_OPERATOR_TOKEN: cluster.operatorToken,
              CRM_OPERATOR_TLS_DIR: cluster.internalTlsDirs.operator,
            },
    },
  );
  return signup;
}

/** A process that died mid-run makes every figure suspect: says so, with its log. */
function warnAboutDeadProcesses(cluster, log) {
  for (const [name, proc] of cluster.processes)
    if (!proc.running) log(`WARNING: ${name} exited during the run; the figures are suspect. Its log:\n${proc.tail(20)}`);
}

/** The certificate of one of the cluster's internal identities, for a GrpcClient that calls a service as it. */
function internalTls(cluster, identity) {
  const { loadInternalTls } = require(path.join(ROOT, 'libs/grpc/dist'));
  return loadInternalTls(cluster.internalTlsDirs[identity]);
}

/** Uploads `csv` (a Buffer) as an async contact import of `token`'s workspace; resolves to the accepted job (202). */
async function startImport(base, agent, token, csv) {
  const boundary = `----crm-bench-${Date.now()}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.csv"\r\nContent-Type: text/csv\r\n\r\n`;
  const res = await request(`${base}/api/crm/contacts/import/start/`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: Buffer.concat([Buffer.from(head), csv, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  });
  const accepted = JSON.parse(await res.body.text());
  if (res.statusCode !== 202) throw new Error(`upload refused: ${res.statusCode} ${JSON.stringify(accepted)}`);
  return accepted;
}

module.exports = { gatewayApi, internalTls, signUpUnlimited, startImport, warnAboutDeadProcesses };
