// `npm run bench -- --target npm-start`: the CRM as `npm start` runs it (scripts/start.js, one
// process: SQLite, the in-process bus, memory rate limits) in a fresh CRM_DATA_DIR, shaped like
// the local cluster for the suites that support it (`module.exports.targets`).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { freePort } = require('../scripts/cluster-support.js');

const ROOT = path.resolve(__dirname, '..');

/** The Node options package.json's start script gives scripts/start.js, so this target runs what `npm start` runs. */
function npmStartNodeOptions() {
  const start = require('../package.json').scripts.start;
  const match = /^node ((?:--\S+ )*)scripts\/start\.js$/.exec(start);
  if (!match) throw new Error(`package.json's start script is not "node [--options] scripts/start.js": ${start}`);
  return match[1].split(' ').filter(Boolean);
}

/** Starts scripts/start.js (with npm start's Node options and `nodeArgs`, e.g. --cpu-prof) and resolves once it listens. */
async function startNpmStart({ nodeArgs = [] } = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-bench-npm-start-'));
  const port = await freePort();
  const metricsPort = await freePort();
  const env = { ...process.env, CRM_DATA_DIR: dataDir, CRM_PORT: String(port), METRICS_PORT: String(metricsPort), LOG_LEVEL: 'warn' };
  // Laptop mode: none of the external stores, whatever this shell has set.
  for (const name of ['MONGO_URL', 'AMQP_URL', 'REDIS_URL']) delete env[name];
  const child = spawn(process.execPath, [...npmStartNodeOptions(), ...nodeArgs, 'scripts/start.js'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  const running = () => child.exitCode === null && child.signalCode === null;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen in 120 s:\n${printed}`)), 120_000);
    const collect = (chunk) => {
      printed = (printed + chunk.toString()).slice(-20_000);
      if (printed.includes(`CRM listening on https://localhost:${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before listening:\n${printed}`));
    });
  });
  const tlsRoot = path.join(dataDir, 'internal-tls');
  return {
    target: 'npm start',
    dataDir,
    pid: child.pid,
    // The internal certificates and auth's socket, for suites that call a service as one of its identities.
    internalTlsDirs: Object.fromEntries(fs.readdirSync(tlsRoot).map((identity) => [identity, path.join(tlsRoot, identity)])),
    authAddress: fs.readFileSync(path.join(dataDir, 'auth-address'), 'utf8').trim(),
    // Its self-signed certificate names 127.0.0.1, and trusting it is enough for a client.
    ca: fs.readFileSync(path.join(dataDir, 'tls', 'localhost.crt'), 'utf8'),
    gateways: [{ url: `https://127.0.0.1:${port}` }],
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    running,
    tail: () => printed.split('\n').slice(-20).join('\n'),
    async stop() {
      if (running()) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT'); // as Ctrl-C: the services stop and --cpu-prof writes its profile
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
        if (running()) child.kill('SIGKILL');
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

module.exports = { startNpmStart };
