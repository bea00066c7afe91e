// What the bench suites share: a JSON client for a cluster's gateway, a workspace whose rate limit
// stays out of the way, and a warning when a cluster process died during a run.
'use strict';
const { execFileSync } = require('node:child_process');
const path = require('node:path');
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
  execFileSync(
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
    { env: { ...process.env, AUTH_GRPC_ADDR: cluster.authAddress, CRM_OPERATOR_TOKEN: cluster.operatorToken } },
  );
  return signup;
}

/** A process that died mid-run makes every figure suspect: says so, with its log. */
function warnAboutDeadProcesses(cluster, log) {
  for (const [name, proc] of cluster.processes)
    if (!proc.running) log(`WARNING: ${name} exited during the run; the figures are suspect. Its log:\n${proc.tail(20)}`);
}

module.exports = { gatewayApi, signUpUnlimited, warnAboutDeadProcesses };
