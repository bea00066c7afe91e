// Validates rendered Kubernetes objects against the API schemas of the oldest and the newest
// Kubernetes version the chart is checked on, from the kubernetes-models packages that
// scripts/chart-tools.sh installs (generated from the Kubernetes OpenAPI spec):
//   1.27: kubernetes-models@4.3.1 (Kubernetes v1.27.1), plain JSON schemas, checked here with ajv and
//         made strict (an object with declared properties takes no others), so a field unknown to
//         1.27 (a misspelling, or one added later) fails;
//   1.36: kubernetes-models@5.1.0 (Kubernetes v1.36.0), its compiled validators (types, required
//         fields, enums, formats; not strict about unknown fields).
// Custom resources: MongoDBCommunity and RabbitmqCluster against the operators' CRD schemas in
// crds/ (trimmed, made strict the same way); the Prometheus Operator's and cert-manager's with
// @kubernetes-models/prometheus-operator and cert-manager (compiled from their CRDs). A kind with
// no schema anywhere fails.
// Usage: node validate-manifests.mjs <chart-tools dir> < objects.json; prints
// [{ version, object, errors }] for every object that fails, [] when all pass.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const toolsDir = process.argv[2];
const objects = JSON.parse(readFileSync(0, 'utf8'));

/** "apps/v1" + Deployment -> "apps/v1/Deployment"; core "v1" stays "v1". */
const modelPath = (object) => `${object.apiVersion}/${object.kind}`;

function strict(node) {
  if (Array.isArray(node)) return node.map(strict);
  if (node === null || typeof node !== 'object') return node;
  const out = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === 'properties' ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, strict(s)])) : strict(v),
    ]),
  );
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

async function validator127() {
  const dir = join(toolsDir, 'k8s-1.27', 'node_modules');
  const require = createRequire(join(dir, 'kubernetes-models', 'package.json'));
  const registered = new Map();
  // The schema modules register themselves with @kubernetes-models/validate; collect them instead.
  const validatePath = require.resolve('@kubernetes-models/validate');
  require.cache[validatePath] = {
    id: validatePath,
    filename: validatePath,
    loaded: true,
    exports: { register: (id, schema) => registered.set(id, schema) },
  };
  const { default: Ajv } = await import(pathToFileURL(createRequire(import.meta.url).resolve('ajv')).href);
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  return (object) => {
    let file;
    try {
      file = require.resolve(`kubernetes-models/${modelPath(object)}`);
    } catch {
      return null;
    }
    const schemaName = /_schemas\/(\w+)/.exec(readFileSync(file, 'utf8'))?.[1];
    if (!schemaName) return null;
    require(join(dir, 'kubernetes-models', '_schemas', `${schemaName}.js`)).addSchema();
    for (const [id, schema] of registered) if (!ajv.getSchema(id)) ajv.addSchema({ ...strict(schema), $id: id });
    const id = [...registered.keys()].find(
      (key) => key.endsWith(`.${object.kind}`) && schemaName.toLowerCase() === key.replace(/\./g, '').toLowerCase(),
    );
    const validate = ajv.getSchema(id);
    return validate(object)
      ? []
      : validate.errors.map(
          (e) => `${e.instancePath || '/'} ${e.message}${e.params?.additionalProperty ? `: ${e.params.additionalProperty}` : ''}`,
        );
  };
}

async function validator136() {
  const dir = join(toolsDir, 'k8s-1.36', 'node_modules', 'kubernetes-models');
  const cache = new Map();
  return async (object) => {
    const path = join(dir, `${modelPath(object)}.js`);
    if (!cache.has(path)) cache.set(path, await import(pathToFileURL(path).href).catch(() => null));
    const module = cache.get(path);
    const Model = module?.[object.kind];
    if (!Model) return null;
    try {
      new Model(object).validate();
      return [];
    } catch (error) {
      return (error.errors ?? [{ instancePath: '', message: error.message }]).map((e) => `${e.instancePath || '/'} ${e.message}`);
    }
  };
}

/** Custom resources: a trimmed CRD schema in crds/, else a kubernetes-models CRD package. */
async function validatorCrd() {
  const here = dirname(fileURLToPath(import.meta.url));
  const { default: Ajv } = await import(pathToFileURL(createRequire(import.meta.url).resolve('ajv')).href);
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const packages = ['prometheus-operator', 'cert-manager'].map((name) =>
    join(toolsDir, 'crds', 'node_modules', '@kubernetes-models', name),
  );
  return async (object) => {
    const [group, version] = object.apiVersion.split('/');
    const file = join(here, 'crds', `${group}_${version}_${object.kind}.json`);
    if (existsSync(file)) {
      const validate = ajv.getSchema(file) ?? (ajv.addSchema(strict(JSON.parse(readFileSync(file, 'utf8'))), file), ajv.getSchema(file));
      return validate(object)
        ? []
        : validate.errors.map(
            (e) => `${e.instancePath || '/'} ${e.message}${e.params?.additionalProperty ? `: ${e.params.additionalProperty}` : ''}`,
          );
    }
    for (const dir of packages) {
      const path = join(dir, `${modelPath(object)}.js`);
      if (!existsSync(path)) continue;
      const Model = (await import(pathToFileURL(path).href))[object.kind];
      try {
        new Model(object).validate();
        return [];
      } catch (error) {
        return (error.errors ?? [{ instancePath: '', message: error.message }]).map((e) => `${e.instancePath || '/'} ${e.message}`);
      }
    }
    return [`no schema for the custom resource ${object.apiVersion} ${object.kind}`];
  };
}

// Built-in API groups: the core group ("v1") and every group without a dot or ending in .k8s.io.
const builtIn = (apiVersion) =>
  !apiVersion.includes('/') || !apiVersion.split('/')[0].includes('.') || apiVersion.split('/')[0].endsWith('.k8s.io');
const validators = { 1.27: await validator127(), 1.36: await validator136() };
const crd = await validatorCrd();
const failures = [];
for (const object of objects) {
  const name = `${object.kind}/${object.metadata?.name}`;
  if (!builtIn(object.apiVersion)) {
    const errors = await crd(object);
    if (errors.length) failures.push({ version: 'crd', object: name, errors });
    continue;
  }
  for (const [version, validate] of Object.entries(validators)) {
    const errors = await validate(object);
    if (errors === null)
      failures.push({ version, object: name, errors: [`${object.apiVersion} ${object.kind} is not served by Kubernetes ${version}`] });
    else if (errors.length) failures.push({ version, object: name, errors });
  }
}
console.log(JSON.stringify(failures, null, 1));
