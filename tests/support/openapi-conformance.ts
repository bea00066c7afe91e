/**
 * Checks answers against the OpenAPI document the gateway serves: the status is one the operation
 * documents (or `default`), a JSON body validates against that response's schema (ajv, JSON Schema
 * 2020-12 as OpenAPI 3.1 says), and a content type the response does not document is reported.
 *
 * A path no template matches must answer the document's 404 error shape; a method a known path
 * does not serve must answer 405 with `Allow` in the same error shape. ApiClient records every
 * answer here; tests/support/openapi-conformance.setup.ts fails a cross suite that saw a violation.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export interface RecordedAnswer {
  method: string;
  /** As requested: may carry /api/v1, a query string, or no trailing slash. */
  path: string;
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed body when the answer is JSON. */
  body: unknown;
  /** The JSON request body sent, if any: one the server accepted (2xx) must fit the document's request schema. */
  requestBody?: unknown;
}

export interface Violation {
  method: string;
  template: string;
  status: number;
  problem: string;
  body: string;
}

type Operation = { responses?: Record<string, Record<string, unknown>> };
type OpenApiDocument = { paths: Record<string, Record<string, Operation>>; components?: Record<string, Record<string, unknown>> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'];
/**
 * Statuses the gateway answers before it routes a request, so for any path: a missing credential,
 * a settings write by a non-admin (the guard reads the path loosely, so odd spellings are refused
 * too), a spent budget, a backing service down.
 */
const BEFORE_ROUTING = [401, 403, 429, 503];
const DOCUMENT_ID = 'https://crm.invalid/openapi.json';

export class OpenApiConformance {
  private readonly ajv: Ajv2020;
  private readonly templates: Array<{ template: string; pattern: RegExp; params: number }>;
  private readonly validators = new Map<string, ValidateFunction>();
  readonly violations: Violation[] = [];
  checked = 0;

  constructor(private readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    this.templates = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(
          `^${trimSlash(template)
            .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
            .replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`,
          'i', // as Express routes
        ),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // A literal path (/api/contacts/import/) wins over a template (/api/contacts/{id}/).
      .sort((a, b) => a.params - b.params);
  }

  /** Checks one answer; returns the problems found (also kept in `violations`). */
  check(answer: RecordedAnswer): Violation[] {
    this.checked += 1;
    const found: Violation[] = [];
    const report = (template: string, problem: string) =>
      found.push({ method: answer.method.toUpperCase(), template, status: answer.status, problem, body: answer.text.slice(0, 200) });
    const path = trimSlash(answer.path.split('?')[0].replace(/^\/api\/v1(?=\/|$)/, '/api'));
    const match = this.templates.find((t) => t.pattern.test(path));
    const method = answer.method.toLowerCase();
    if (!match) {
      if (answer.status !== 404 && !BEFORE_ROUTING.includes(answer.status))
        report(`(no template for ${path})`, 'an undocumented path must answer 404');
      else this.checkErrorShape(answer, `(no template for ${path})`, report);
    } else {
      const operations = this.document.paths[match.template];
      const operation = operations[method];
      if (!operation) {
        const allowed = Object.keys(operations).filter((m) => METHODS.includes(m));
        if (method === 'head' && operations.get) {
          // HEAD is answered as GET without a body.
        } else if (BEFORE_ROUTING.includes(answer.status)) {
          // A missing credential or a spent budget is answered before the method is looked at.
          this.checkErrorShape(answer, match.template, report);
        } else if (answer.status !== 405) report(match.template, `a method the path does not serve must answer 405, not ${answer.status}`);
        else {
          const allow = (answer.headers.allow ?? '').split(',').map((m) => m.trim().toLowerCase());
          for (const m of allowed)
            if (!allow.includes(m)) report(match.template, `Allow "${answer.headers.allow ?? ''}" lacks ${m.toUpperCase()}`);
          this.checkErrorShape(answer, match.template, report);
        }
      } else {
        this.checkOperation(answer, match.template, method, operation, report);
      }
    }
    this.violations.push(...found);
    return found;
  }

  private checkOperation(
    answer: RecordedAnswer,
    template: string,
    method: string,
    operation: Operation,
    report: (template: string, problem: string) => void,
  ): void {
    const requestSchema = (operation as { requestBody?: { content?: Record<string, { schema?: unknown }> } }).requestBody?.content?.[
      'application/json'
    ]?.schema;
    if (answer.requestBody !== undefined && answer.status >= 200 && answer.status < 300 && requestSchema) {
      const validate = this.validator(`#/paths/${escape(template)}/${method}/requestBody/content/application~1json/schema`);
      if (!validate(answer.requestBody))
        report(
          template,
          `the server accepted a request body the document refuses: ${formatErrors(validate.errors ?? [])}; sent ${JSON.stringify(answer.requestBody).slice(0, 200)}`,
        );
    }
    if (answer.status >= 200 && answer.status < 300) this.checkQuery(answer, template, method, operation, report);
    const responses = operation.responses ?? {};
    const key = String(answer.status) in responses ? String(answer.status) : 'default' in responses ? 'default' : undefined;
    if (!key) {
      report(template, `status ${answer.status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
      return;
    }
    let pointer = `#/paths/${escape(template)}/${method}/responses/${key}`;
    let response = responses[key];
    const responseRef = response.$ref;
    if (typeof responseRef === 'string') {
      pointer = responseRef;
      response = this.resolve(responseRef);
    }
    this.checkContent(answer, template, pointer, response, report);
  }

  /**
   * The request side of an accepted call: every query parameter is one the operation documents
   * (by name), and its value fits the parameter's schema (a number where it says integer).
   */
  private checkQuery(
    answer: RecordedAnswer,
    template: string,
    method: string,
    operation: Operation,
    report: (template: string, problem: string) => void,
  ): void {
    const query = answer.path.includes('?') ? new URLSearchParams(answer.path.slice(answer.path.indexOf('?') + 1)) : undefined;
    if (!query) return;
    const parameters = ((operation as { parameters?: Array<Record<string, unknown>> }).parameters ?? []).map((p) =>
      typeof p.$ref === 'string' ? this.resolve(p.$ref) : p,
    );
    for (const [name, value] of query) {
      const index = parameters.findIndex((p) => p.in === 'query' && p.name === name);
      if (index < 0) {
        if (!parameters.some((p) => isExplodedObjectWith(p, name)))
          report(template, `the server accepted query parameter "${name}", which the operation does not document`);
        continue;
      }
      const schema = parameters[index]!.schema as { type?: string | string[] } | undefined;
      if (!schema) continue;
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      const typed = queryValue(value, types);
      const source = (operation as { parameters?: Array<Record<string, unknown>> }).parameters![index]!;
      const pointer =
        typeof source.$ref === 'string' ? `${source.$ref}/schema` : `#/paths/${escape(template)}/${method}/parameters/${index}/schema`;
      const validate = this.validator(pointer);
      if (!validate(typed))
        report(
          template,
          `the server accepted ${name}=${value.slice(0, 80)}, which the document refuses: ${formatErrors(validate.errors ?? [])}`,
        );
    }
  }

  private checkErrorShape(answer: RecordedAnswer, template: string, report: (template: string, problem: string) => void): void {
    this.checkContent(answer, template, '#/components/responses/NotFound', this.resolve('#/components/responses/NotFound'), report);
  }

  private checkContent(
    answer: RecordedAnswer,
    template: string,
    pointer: string,
    response: Record<string, unknown>,
    report: (template: string, problem: string) => void,
  ): void {
    if (answer.method.toUpperCase() === 'HEAD') return;
    const content = (response.content ?? {}) as Record<string, { schema?: unknown }>;
    const mediaType = (answer.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (answer.text.length === 0) {
      if (Object.keys(content).length > 0 && answer.status !== 204)
        report(template, `an empty body where the document says ${Object.keys(content).join(', ')}`);
      return;
    }
    if (Object.keys(content).length === 0) {
      report(template, `a ${mediaType || 'untyped'} body where the document says there is none`);
      return;
    }
    const documented = Object.keys(content).find((m) => mediaTypeMatches(m, mediaType));
    if (!documented) {
      report(template, `content type ${mediaType || '(none)'} is not documented (documented: ${Object.keys(content).join(', ')})`);
      return;
    }
    if (!content[documented].schema || !/json/.test(mediaType)) return;
    const validate = this.validator(`${pointer}/content/${escape(documented)}/schema`);
    if (!validate(answer.body)) report(template, `body does not match the schema: ${formatErrors(validate.errors ?? [])}`);
  }

  /** Whether the document's request schema of `method template` accepts `body` (for tests that send refused bodies). */
  acceptsRequestBody(method: string, template: string, body: unknown): boolean {
    return (
      this.validator(`#/paths/${escape(template)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`)(body) === true
    );
  }

  /** Compiles every JSON request and answer schema (a schema ajv cannot compile throws); returns how many. */
  compileAll(): number {
    let count = 0;
    for (const [template, operations] of Object.entries(this.document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const at = `#/paths/${escape(template)}/${method}`;
        const request = (operation as { requestBody?: { content?: Record<string, unknown> } }).requestBody?.content ?? {};
        for (const media of Object.keys(request).filter((m) => m.includes('json'))) {
          this.validator(`${at}/requestBody/content/${escape(media)}/schema`);
          count += 1;
        }
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (typeof response.$ref === 'string') continue;
          const content = (response.content ?? {}) as Record<string, { schema?: unknown }>;
          for (const media of Object.keys(content).filter((m) => m.includes('json') && content[m].schema)) {
            this.validator(`${at}/responses/${status}/content/${escape(media)}/schema`);
            count += 1;
          }
        }
      }
    }
    return count;
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${pointer.split('/').map(encodeURIComponent).join('/').replace(/^%23/, '#')}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  private resolve(ref: string): Record<string, unknown> {
    let node: unknown = this.document;
    for (const segment of ref.replace(/^#\//, '').split('/'))
      node = (node as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (!node || typeof node !== 'object') throw new Error(`unresolved $ref ${ref}`);
    return node as Record<string, unknown>;
  }
}

/** A readable list, one violation a line: method, template, status, problem, the body's start. */
export function describeViolations(violations: Violation[]): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const v of violations) {
    const line = `${v.method} ${v.template} → ${v.status}: ${v.problem}\n    body: ${v.body}`;
    if (seen.has(line)) continue;
    seen.add(line);
    lines.push(line);
  }
  return lines.join('\n');
}

/** A query string value as the parameter's schema types it (numbers and booleans travel as text). */
function queryValue(value: string, types: Array<string | undefined>): unknown {
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function formatErrors(errors: ErrorObject[]): string {
  return errors
    .slice(0, 8)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('; ');
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function mediaTypeMatches(documented: string, actual: string): boolean {
  if (documented === '*/*' || documented === actual) return true;
  return documented.endsWith('/*') && actual.startsWith(documented.slice(0, -1));
}

// One checker per jest worker (the document is the same whichever cluster serves it).
let shared: { checker?: OpenApiConformance; loading?: Promise<OpenApiConformance> } = {};

/** Records an answer, loading the document once (through `load`) the first time. */
export async function recordAnswer(answer: RecordedAnswer, load: () => Promise<unknown>): Promise<void> {
  if (answer.path.startsWith('/api/openapi.json')) return;
  shared.loading ??= load().then((document) => (shared.checker = new OpenApiConformance(document as OpenApiDocument)));
  const checker = await shared.loading.catch(() => undefined);
  // A cluster that cannot serve its document (stopped, faulted) is checked by the next answer.
  if (!checker) {
    shared = {};
    pending.push(answer);
    return;
  }
  for (const held of pending.splice(0)) checker.check(held);
  checker.check(answer);
}

const pending: RecordedAnswer[] = [];

/** The violations this worker recorded, cleared. */
export function takeViolations(): { violations: Violation[]; checked: number; unchecked: number } {
  const checker = shared.checker;
  const result = { violations: checker ? checker.violations.splice(0) : [], checked: checker?.checked ?? 0, unchecked: pending.length };
  if (checker) checker.checked = 0;
  return result;
}

/**
 * An object parameter serialised `form`, exploded: each of its properties is a query parameter of
 * its own name; the names it takes are its schema's `propertyNames` pattern.
 */
function isExplodedObjectWith(parameter: Record<string, unknown>, name: string): boolean {
  const schema = parameter.schema as { type?: string; propertyNames?: { pattern?: string } } | undefined;
  if (parameter.in !== 'query' || parameter.style !== 'form' || parameter.explode !== true || schema?.type !== 'object') return false;
  return schema.propertyNames?.pattern !== undefined && new RegExp(schema.propertyNames.pattern).test(name);
}
