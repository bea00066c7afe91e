#!/usr/bin/env node
// The container runner: the CRM from its images (the root Dockerfile's targets), every replica a
// podman container on the host's network with a read-only root filesystem, on the machine's Redis
// and RabbitMQ. What runs, with which program, ports and callees, comes from charts/crm/topology.yaml,
// the table the chart deploys from; each container runs under its pod's memory limit in the chart's
// values.yaml. Several replicas of each server share one address through a
// ServiceProxy, as a Kubernetes Service would give them. `startContainerCluster` returns what
// `startLocalCluster` does, so the cross suites run against it unchanged (CRM_TEST_CLUSTER=containers).
'use strict';
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { promisify } = require('node:util');
const { ContainerProcess } = require('./container-process');
const { ServiceProxy } = require('./service-proxy');
const {
  DEFAULT_AMQP_URL,
  DEFAULT_REDIS_URL,
  busEnvOf,
  makeCertificate,
  makeInternalCertificates,
  readTopology,
  requireBrokers,
  runEnv,
} = require('./cluster-support');
const { PodProber, ReadinessGate } = require('./kubelet-probes');
const { renderedPods, resolveEnv } = require('./rendered-pods');

const ROOT = path.resolve(__dirname, '..');
const run = promisify(execFile);
const PORT_ENV = { api: 'CRM_PORT', grpc: 'GRPC_PORT', upload: 'UPLOAD_PORT', health: 'GRPC_HEALTH_PORT' };
/** The uid the images run as (the `node` user); mounted folders must be writable by it. */
const CONTAINER_UID = 1000;
const READY_TIMEOUT_MS = 180_000;

/**
 * A port for a container to listen on, from 20000-31999: below Linux's ephemeral range (32768+),
 * from which outgoing connections and the local-cluster runner's free ports come. A port picked
 * there could be taken by someone else's socket before the container binds it (EADDRINUSE seen
 * with 14 containers and other suites running on the machine).
 */
const picked = new Set();
async function listenPort() {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (picked.has(port)) continue;
    const free = await new Promise((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
    });
    if (free) {
      picked.add(port);
      return port;
    }
  }
}

/** A Kubernetes memory quantity in binary units (512Mi, 1Gi) in MB. */
function mebibytes(quantity) {
  const match = /^(\d+)(Mi|Gi)$/.exec(String(quantity));
  if (!match) throw new Error(`memory limit ${quantity}: expected Mi or Gi`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

/** Each component's memory limit in the chart's values.yaml, in MB, by topology key. */
function podMemoryLimitsMb(topology) {
  const values = require('js-yaml').load(fs.readFileSync(path.join(ROOT, 'charts/crm/values.yaml'), 'utf8'));
  return Object.fromEntries(Object.keys(topology).map((key) => [key, mebibytes(values[key].resources.limits.memory)]));
}

/** The image a component runs: crm-<its Dockerfile target>, tagged `tag`. */
const imageOf = (spec, tag) => `localhost/crm-${spec.target}:${tag}`;

function ownedByContainerUser(dir) {
  fs.mkdirSync(dir, { recursive: true });
  if (process.getuid?.() === 0) fs.chownSync(dir, CONTAINER_UID, CONTAINER_UID);
  else fs.chmodSync(dir, 0o777);
  return dir;
}

/**
 * How many replicas of each component, by topology key, from the options the cross suites pass:
 * `gateways`, `workers` (per worker role), `withWorkers`, and `replicas` for every other server
 * (default CRM_TEST_REPLICAS, else 2); `counts` ({records: 3}) overrides any of them.
 */
function replicaCounts(topology, options) {
  const counts = {};
  for (const [key, spec] of Object.entries(topology)) {
    if (key === 'gateway') counts[key] = options.gateways ?? 2;
    else if (spec.role === 'worker') counts[key] = options.withWorkers === false ? 0 : (options.workers ?? 2);
    else counts[key] = options.replicas ?? Number(process.env.CRM_TEST_REPLICAS ?? 2);
  }
  return { ...counts, ...options.counts };
}

/**
 * Headless Services, as the chart addresses the gRPC servers (`dns:///crm-<name>-headless:<port>`):
 * every replica of a server listens on the same port at an address of its own on the loopback
 * network (127.0.<20 + server's index>.<replica>), and each container's /etc/hosts (one file the
 * runner rewrites in place, bind-mounted into all) names all ready replicas under the Service's
 * name, which glibc answers with every address (`multi on`), as cluster DNS answers with every
 * ready pod's. grpc-js resolves it, balances round_robin, and asks again when a connection ends.
 */
/** The headless Services' hosts file's one size (a few dozen replicas' lines fit). */
const HOSTS_FILE_BYTES = 8192;

class HeadlessServices {
  constructor(dataDir) {
    this.file = path.join(dataDir, 'hosts');
    this.members = new Map();
    this.write();
  }

  static hostname(spec) {
    return `crm-${spec.name}-headless`;
  }

  static address(serverIndex, replicaIndex) {
    return `127.0.${20 + serverIndex}.${replicaIndex}`;
  }

  set(spec, addresses) {
    this.members.set(HeadlessServices.hostname(spec), addresses);
    this.write();
  }

  /** The cluster is down: probers still finishing their last check must not write to a removed folder. */
  close() {
    this.closed = true;
  }

  /**
   * In place (same inode): the containers' bind mounts see the new answer at their next lookup.
   * Never truncated: a lookup that read the file between a truncation and the write found no name
   * (measured: 111 of 1,960 lookups failed while it was rewritten every 2 ms), and a caller's
   * re-resolution at that moment failed its calls with UNAVAILABLE; cluster DNS answers either
   * the old endpoints or the new. So the file keeps one size, its answer padded with comment
   * lines, and is overwritten by one positioned write (0 of 79,745 lookups failed).
   */
  write() {
    if (this.closed) return;
    const lines = ['127.0.0.1 localhost', '::1 localhost'];
    for (const [hostname, addresses] of this.members) for (const address of addresses) lines.push(`${address} ${hostname}`);
    const answer = `${lines.join('\n')}\n`;
    if (Buffer.byteLength(answer) > HOSTS_FILE_BYTES)
      throw new Error(`the headless Services' hosts file outgrew ${HOSTS_FILE_BYTES} bytes`);
    const padded = Buffer.alloc(HOSTS_FILE_BYTES, '#\n');
    padded.write(answer, 0);
    const fd = fs.openSync(this.file, fs.existsSync(this.file) ? 'r+' : 'w', 0o644);
    try {
      fs.writeSync(fd, padded, 0, padded.length, 0);
    } finally {
      fs.closeSync(fd);
    }
    fs.chmodSync(this.file, 0o644);
  }
}

/** Replica names as the local-cluster runner gives them: records, records-2; import-worker-1; gateway-1. */
function replicaName(spec, index) {
  if (spec.role === 'worker' || spec.name === 'gateway') return `${spec.name}-${index}`;
  return index === 1 ? spec.name : `${spec.name}-${index}`;
}

/**
 * Starts the system from its images and resolves once every replica is ready.
 * Options as startLocalCluster's, plus `replicas` (per server, default 2), `counts` ({records: 3}),
 * `imageTag` (latest), `headless` (gRPC callers address headless Services, as the chart does) and
 * `probes` (the kubelet's startup, readiness and liveness probes with restarts; otherwise the
 * readiness probe gates each start: scripts/kubelet-probes.js says why).
 */
async function startContainerCluster(options = {}) {
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  const amqpUrl = options.amqpUrl ?? process.env.AMQP_URL ?? DEFAULT_AMQP_URL;
  const mongoUrl = options.mongoUrl ?? process.env.MONGO_URL;
  const imageTag = options.imageTag ?? process.env.CRM_IMAGE_TAG ?? 'latest';
  const runId = randomBytes(4).toString('hex');
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'crm-containers-'));
  fs.chmodSync(dataDir, 0o755);
  await requireBrokers(redisUrl, amqpUrl);
  const topology = readTopology();
  const counts = replicaCounts(topology, options);
  fs.mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
  const tlsDir = ownedByContainerUser(path.join(dataDir, 'tls'));
  const tls = await makeCertificate(tlsDir);
  for (const file of [tls.certFile, tls.keyFile]) fs.chownSync(file, CONTAINER_UID, CONTAINER_UID);
  const operatorToken = randomBytes(24).toString('base64url');
  // The internal CA and a certificate per deployable, each container mounting only its own folder
  // (ca.crt, tls.crt, tls.key), as the chart mounts its Secret.
  const internalTlsDirs = await makeInternalCertificates(dataDir);
  for (const dir of Object.values(internalTlsDirs)) {
    fs.chmodSync(dir, 0o755);
    for (const file of fs.readdirSync(dir)) if (process.getuid?.() === 0) fs.chownSync(path.join(dir, file), CONTAINER_UID, CONTAINER_UID);
    if (process.getuid?.() !== 0) fs.chmodSync(path.join(dir, 'tls.key'), 0o644);
  }

  // One Service per listener that has callers: grpc of every server, upload of import.
  const replicas = [];
  const headless = options.headless ? new HeadlessServices(dataDir) : null;
  const servers = Object.keys(topology).filter((key) => !topology[key].role && topology[key].ports?.grpc);
  /** With headless Services, a server's replicas share their ports (each has an address of its own). */
  const sharedPorts = {};
  if (headless) {
    for (const key of servers) {
      sharedPorts[key] = {};
      for (const portName of ['grpc', 'health']) if (topology[key].ports[portName]) sharedPorts[key][portName] = await listenPort();
    }
  }
  const newReplica = async (key, i) => {
    const spec = topology[key];
    const ports = {};
    for (const portName of Object.keys(spec.ports ?? {}))
      ports[portName] = sharedPorts[key]?.[portName] ?? (options.port && key === 'gateway' ? options.port + i - 1 : await listenPort());
    const host = sharedPorts[key] ? HeadlessServices.address(servers.indexOf(key), i) : '127.0.0.1';
    return { key, spec, name: replicaName(spec, i), index: i, host, ports, metricsPort: await listenPort() };
  };
  for (const key of Object.keys(topology)) for (let i = 1; i <= counts[key]; i += 1) replicas.push(await newReplica(key, i));
  /** Every replica of a server whose readiness passed and that was not told to stop, as a Service's endpoints. */
  const publishEndpoints = (key) => {
    if (!headless || !sharedPorts[key]) return;
    headless.set(
      topology[key],
      replicas.filter((r) => r.key === key && r.prober?.isReady && r.proc.serving).map((r) => r.host),
    );
  };
  const services = {};
  const serviceOf = async (key, portName) => {
    const id = `${key}/${portName}`;
    if (!services[id]) {
      const proxy = new ServiceProxy(id, () =>
        replicas.filter((r) => r.key === key && r.proc?.serving && r.prober.isReady).map((r) => `${r.host}:${r.ports[portName]}`),
      );
      await proxy.listen();
      services[id] = proxy;
    }
    return services[id];
  };
  for (const [key, spec] of Object.entries(topology)) {
    if (!spec.role && spec.ports?.grpc) await serviceOf(key, 'grpc');
    if (!spec.role && spec.ports?.upload) await serviceOf(key, 'upload');
  }

  // What the chart renders for each pod (scripts/rendered-pods.js), and what one host must put in
  // its place: ports and listen addresses (every replica shares the host's network), callees'
  // addresses (the Service stand-ins, or the headless names), the Secrets' values (the machine's
  // brokers, this run's tokens and certificates), the pod's name, and the run's own bus and Redis
  // key names so that runs sharing the brokers stay apart.
  const pods = renderedPods();
  const {
    REDIS_URL: _redis,
    AMQP_URL: _amqp,
    ...runNames
  } = runEnv({
    runId,
    redisUrl,
    amqpUrl,
    logLevel: options.logLevel ?? process.env.CLUSTER_LOG_LEVEL ?? 'info',
  });
  const shared = { ...runNames, ...options.env };
  const secrets = {
    'crm-store-urls/mongoUrl': mongoUrl ?? '',
    'crm-store-urls/amqpUrl': amqpUrl,
    'crm-store-urls/redisUrl': redisUrl,
    'crm-generated/operatorToken': operatorToken,
    'crm-generated/importUploadSecret': randomBytes(24).toString('base64url'),
  };
  // The gateway's certificate as the chart's TLS Secret holds it (tls.crt, tls.key).
  const gatewayTlsDir = ownedByContainerUser(path.join(dataDir, 'gateway-tls'));
  fs.copyFileSync(tls.certFile, path.join(gatewayTlsDir, 'tls.crt'));
  fs.copyFileSync(tls.keyFile, path.join(gatewayTlsDir, 'tls.key'));
  for (const file of ['tls.crt', 'tls.key'])
    if (process.getuid?.() === 0) fs.chownSync(path.join(gatewayTlsDir, file), CONTAINER_UID, CONTAINER_UID);
  const processes = new Map();
  const calleeAddress = (callee) =>
    headless ? `dns:///${HeadlessServices.hostname(topology[callee])}:${sharedPorts[callee].grpc}` : services[`${callee}/grpc`].address;
  const createProcess = (replica) => {
    const { key, spec, name, ports } = replica;
    const pod = pods[spec.name];
    if (!pod) throw new Error(`helm template renders no Deployment for ${spec.name}`);
    const env = resolveEnv(pod, { secrets, fields: { 'metadata.name': name } });
    for (const variable of Object.keys(env)) {
      const callee = /^([A-Z]+)_GRPC_ADDR$/.exec(variable)?.[1]?.toLowerCase();
      if (!callee) continue;
      if (callee === key)
        env[variable] = `${replica.host}:${ports.grpc}`; // auth's operator CLI calls its own pod
      else if ((spec.calls ?? []).includes(callee)) env[variable] = calleeAddress(callee);
      else throw new Error(`${spec.name}: ${variable} names a service the topology says it does not call`);
    }
    for (const [portName, port] of Object.entries(ports)) env[PORT_ENV[portName]] = String(port);
    env.METRICS_PORT = String(replica.metricsPort);
    if (env.IMPORT_UPLOAD_URL) env.IMPORT_UPLOAD_URL = `https://${services['import/upload'].address}`;
    if (key === 'gateway') {
      env.CRM_HOST = '127.0.0.1';
      // Shorter than the chart's 5 s (the proxies here skip a closed listener at once), still long enough to observe.
      env.DRAIN_DELAY_MS = '3000';
    } else env.GRPC_HOST = replica.host;
    if (mongoUrl && env.MONGO_DATABASE) env.MONGO_DATABASE = `${env.MONGO_DATABASE}_${runId}`;
    Object.assign(env, shared);
    const secretDirs = {
      'internal-tls': internalTlsDirs[spec.name],
      'operator-tls': internalTlsDirs.operator,
      tls: gatewayTlsDir,
    };
    const mounts = [];
    const tmpfs = [];
    for (const mount of pod.mounts) {
      if (mount.source === 'secret') {
        if (!secretDirs[mount.volume]) throw new Error(`${spec.name}: the runner has no files for the Secret volume ${mount.volume}`);
        mounts.push({ host: secretDirs[mount.volume], container: mount.mountPath, readOnly: true });
      } else if (mount.volume === 'data') {
        // A server and its workers share one store folder, as they share one database in the chart;
        // a gateway keeps its own.
        const folder = key === 'gateway' ? name : spec.target;
        mounts.push({ host: ownedByContainerUser(path.join(dataDir, folder)), container: mount.mountPath });
      } else tmpfs.push(mount.mountPath);
    }
    if (headless) mounts.push({ host: headless.file, container: '/etc/hosts', readOnly: true });
    const proc = new ContainerProcess({
      name,
      container: `crm-${runId}-${name}`,
      image: imageOf(spec, imageTag),
      args: pod.command,
      env,
      mounts,
      tmpfs,
      labels: { 'crm.run': runId },
      logFile: path.join(dataDir, 'logs', `${name}.log`),
      memoryMb: pod.memoryMb,
      cpus: pod.cpus,
      security: {
        readOnlyRoot: pod.readOnlyRoot,
        user: pod.user,
        dropCapabilities: pod.dropCapabilities,
        noNewPrivileges: pod.noNewPrivileges,
      },
    });
    replica.proc = proc;
    replica.pod = pod;
    // The probes find the container's ports by the chart's name or number.
    const portOf = (port) => {
      const portName = typeof port === 'string' ? port : Object.keys(pod.ports).find((n) => pod.ports[n] === port);
      if (portName === 'metrics') return replica.metricsPort;
      if (!ports[portName]) throw new Error(`${spec.name}: a probe names port ${port}, which the runner did not give it`);
      return ports[portName];
    };
    const Probing = options.probes ? PodProber : ReadinessGate;
    replica.prober = new Probing({
      pod,
      proc,
      host: key === 'gateway' ? '127.0.0.1' : replica.host,
      portOf,
      onReadiness: () => publishEndpoints(key),
    });
    processes.set(name, proc);
  };
  for (const replica of replicas) createProcess(replica);

  const ca = fs.readFileSync(tls.certFile, 'utf8');
  const gateways = replicas
    .filter((r) => r.key === 'gateway')
    .map((r) => ({ name: r.name, url: `https://localhost:${r.ports.api}`, port: r.ports.api }));
  /** Resolves once the replica's readiness probe (the chart's) passes in its current run. */
  const readiness = async (name) => {
    const replica = replicas.find((r) => r.name === name);
    let watching = true;
    const exited = (async () => {
      while (watching) {
        await new Promise((r) => setTimeout(r, 500));
        if (watching && !replica.proc.running && !replica.proc.terminating)
          throw new Error(`${name} exited while starting. Its log (${replica.proc.logFile}):\n${replica.proc.tail()}`);
      }
    })();
    try {
      await Promise.race([replica.prober.waitReady(READY_TIMEOUT_MS), exited]);
    } catch (error) {
      throw new Error(`${error.message}${error.message.includes('Its log') ? '' : `. Log of ${name}:\n${replica.proc.tail()}`}`);
    } finally {
      watching = false;
    }
  };
  const gatewayService = new ServiceProxy('gateway/api', () =>
    replicas.filter((r) => r.key === 'gateway' && r.proc.serving && r.prober.isReady).map((r) => r.ports.api),
  );
  await gatewayService.listen();

  const kindsOf = new Map(replicas.map((r) => [r.name, r.key]));
  const cluster = {
    gateways: gateways.map(({ url, port }) => ({ url, port })),
    /** One HTTPS address in front of every gateway replica, as the chart's gateway Service is. */
    serviceUrl: `https://localhost:${gatewayService.port}`,
    /** Connections the Service stand-ins cut (a replica's side failed or reset), newest last. */
    serviceCuts: () => [gatewayService, ...Object.values(services)].flatMap((s) => s.cuts).sort(),
    ca,
    dataDir,
    runId,
    operatorToken,
    internalTlsDirs,
    authAddress: services['auth/grpc'].address,
    recordsAddress: services['records/grpc'].address,
    busEnv: busEnvOf(shared),
    processes,
    /** Topology key of each replica (records-2 → records), for tests that stop one of each kind. */
    kinds: kindsOf,
    async restart(name, signal = 'SIGTERM') {
      const proc = processes.get(name);
      if (!proc) throw new Error(`No process ${name}`);
      await proc.stop(signal);
      publishEndpoints(kindsOf.get(name)); // a stopping pod leaves its Service's endpoints
      proc.start();
      await readiness(name);
    },
    ready: readiness,
    /**
     * Starts one more replica of a server (records-4) and resolves once it is ready, which is when
     * a headless Service's answer would name it (`headless` clusters; others route through the
     * Service stand-in as soon as it serves).
     */
    async addReplica(key) {
      const replica = await newReplica(key, replicas.filter((r) => r.key === key).length + 1);
      replicas.push(replica);
      createProcess(replica);
      kindsOf.set(replica.name, key);
      replica.proc.start();
      replica.prober.start();
      await readiness(replica.name);
      return { name: replica.name, metricsUrl: `http://127.0.0.1:${replica.metricsPort}/metrics` };
    },
    /** What the kubelet stand-in did to a replica: its restarts (liveness, startup) and why. */
    probeHistory(name) {
      const replica = replicas.find((r) => r.name === name);
      return { restarts: replica.prober.restarts, events: [...replica.prober.events], ready: replica.prober.isReady };
    },
    /** Each replica's metrics address, by replica name. */
    metricsUrls() {
      return new Map(replicas.map((r) => [r.name, `http://127.0.0.1:${r.metricsPort}/metrics`]));
    },
    /** Each replica's host pid, metrics address and its pod's memory limit in the chart's values (MB), for the memory bench. */
    async measuredProcesses() {
      return Promise.all(
        replicas.map(async (r) => ({
          name: r.name,
          pid: Number((await run('podman', ['inspect', '--format', '{{.State.Pid}}', r.proc.container])).stdout.trim()),
          metricsUrl: `http://127.0.0.1:${r.metricsPort}/metrics`,
          limitMb: r.pod.memoryMb,
        })),
      );
    },
    async stop() {
      for (const r of replicas) r.prober.stopped = true; // no restarts while the cluster goes down
      const order = [...processes.values()].reverse();
      const stopAll = (list) => Promise.all(list.map((p) => p.stop('SIGTERM', 15_000).catch(() => undefined)));
      await stopAll(order.filter((p) => p.name.startsWith('gateway-')));
      await stopAll(order.filter((p) => !p.name.startsWith('gateway-')));
      await Promise.all(order.map((p) => p.remove()));
      await Promise.all([gatewayService, ...Object.values(services)].map((s) => s.close()));
      headless?.close();
      if (!options.dataDir && !options.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };

  try {
    // All at once: a gateway is ready once auth answers, and a server's callees are dialled lazily.
    for (const r of replicas) {
      r.proc.start();
      r.prober.start();
    }
    await Promise.all(replicas.map((r) => readiness(r.name)));
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    throw error;
  }
  return cluster;
}

/** Sizes of the images the cluster runs, in bytes, by image name. */
async function imageSizes(tag = 'latest') {
  const targets = [...new Set(Object.values(readTopology()).map((spec) => spec.target))];
  const sizes = {};
  for (const target of targets) {
    const image = imageOf({ target }, tag);
    const { stdout } = await run('podman', ['image', 'inspect', '--format', '{{.Size}}', image]);
    sizes[image] = Number(stdout.trim());
  }
  return sizes;
}

module.exports = { startContainerCluster, imageSizes, readTopology, podMemoryLimitsMb };
