// The operator CLI (`npm run crm -- --help`): talks to the running auth service over gRPC with the
// operator token. It never opens a store file itself.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  authV1,
  GrpcClient,
  internalTlsRoot,
  loadInternalTlsAs,
  OPERATOR_TOKEN_HEADER,
  type CallRequest,
  type InternalTls,
} from '@crm/grpc';
import { isDomainError } from '@crm/observability';
import { DEFAULT_AUTH_ADDRESS, resolveAuthAddress } from './adapters/auth-address';
import { operatorTokenPath } from './adapters/operator-token';

export const EXIT = { ok: 0, failure: 1, usage: 64, invalid: 65, unavailable: 69, denied: 77, config: 78 } as const;

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Io {
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
}

type OperatorClient = GrpcClient<authV1.AuthOperatorServiceMethods>;

interface Command {
  summary: string;
  usage: string;
  options: Options;
  /** Flag each request field is read from, to point validation errors at the right flag. */
  flags: Record<string, string>;
  run(values: Values, call: CallFn, env: NodeJS.ProcessEnv): Promise<{ json: unknown; text: string }>;
}

type CallFn = <K extends keyof authV1.AuthOperatorServiceMethods & string>(
  method: K,
  request: CallRequest<authV1.AuthOperatorServiceMethods, K>,
) => Promise<authV1.AuthOperatorServiceMethods[K]['response']>;

const COMMON: Options = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
};

class UsageError extends Error {}

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required.`);
  return value;
}

function rateLimit(values: Values): number | undefined {
  const raw = values['rate-limit'];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isInteger(n) || n <= 0 || n > 2_147_483_647)
    throw new UsageError('--rate-limit must be a positive whole number.');
  return n;
}

function describeWorkspace(w: authV1.Workspace): string {
  return `${w.id}  ${w.name}  plan=${w.plan}  ${w.rateLimitPerMinute}/min  created ${w.createdAt}`;
}

const COMMANDS: Record<string, Command> = {
  'create-workspace': {
    summary: 'Create a workspace with its admin user.',
    usage:
      'crm create-workspace --name <workspace> --email <admin email> --password <password>\n' +
      '                     [--first-name <name>] [--last-name <name>] [--plan starter|growth|business|enterprise]\n' +
      '                     [--rate-limit <requests per minute, enterprise only>] [--json]\n\n' +
      'The password may come from CRM_ADMIN_PASSWORD instead of --password (keeps it out of the process list).\n' +
      'First and last name default to "Admin" and "User"; the plan defaults to starter.',
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      plan: { type: 'string' },
      'rate-limit': { type: 'string' },
    },
    flags: {
      workspaceName: '--name',
      email: '--email',
      password: '--password',
      firstName: '--first-name',
      lastName: '--last-name',
      plan: '--plan',
      rateLimitPerMinute: '--rate-limit',
    },
    async run(values, call, env) {
      const password = (values.password as string | undefined) ?? env.CRM_ADMIN_PASSWORD;
      if (!password) throw new UsageError('--password (or CRM_ADMIN_PASSWORD) is required.');
      const result = await call('CreateWorkspace', {
        name: required(values, 'name'),
        adminEmail: required(values, 'email'),
        adminPassword: password,
        adminFirstName: (values['first-name'] as string | undefined) ?? 'Admin',
        adminLastName: (values['last-name'] as string | undefined) ?? 'User',
        plan: (values.plan as string | undefined) ?? 'starter',
        rateLimitPerMinute: rateLimit(values) ?? 0,
      });
      return {
        json: result,
        text: `Created workspace ${describeWorkspace(result.workspace!)}\nAdmin: ${result.admin!.id} ${result.admin!.email}`,
      };
    },
  },
  'change-plan': {
    summary: "Change a workspace's plan (and per-minute limit for enterprise).",
    usage: 'crm change-plan --workspace <ws_…> --plan starter|growth|business|enterprise [--rate-limit <n>] [--json]',
    options: { workspace: { type: 'string' }, plan: { type: 'string' }, 'rate-limit': { type: 'string' } },
    flags: { workspaceId: '--workspace', plan: '--plan', rateLimitPerMinute: '--rate-limit' },
    async run(values, call) {
      const workspace = await call('ChangePlan', {
        workspaceId: required(values, 'workspace'),
        plan: required(values, 'plan'),
        rateLimitPerMinute: rateLimit(values) ?? 0,
      });
      return { json: workspace, text: `Updated ${describeWorkspace(workspace)}` };
    },
  },
  'create-api-key': {
    summary: 'Create an API key for a workspace; the key is printed once.',
    usage:
      'crm create-api-key --workspace <ws_…> --name <key name> [--scopes contacts:read,leads:write,…] [--expires-at <ISO 8601>] [--json]',
    options: { workspace: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, 'expires-at': { type: 'string' } },
    flags: { workspaceId: '--workspace', name: '--name', scopes: '--scopes', expiresAt: '--expires-at' },
    async run(values, call) {
      const scopes = ((values.scopes as string | undefined) ?? '').split(',').map((scope) => scope.trim());
      const result = await call('CreateWorkspaceApiKey', {
        workspaceId: required(values, 'workspace'),
        name: required(values, 'name'),
        scopes: scopes.filter(Boolean),
        expiresAt: (values['expires-at'] as string | undefined) ?? '',
      });
      return {
        json: result,
        text: `Created API key ${result.apiKey!.id} (${result.apiKey!.name}).\n\n  ${result.key}\n\nStore it now: it is not shown again.`,
      };
    },
  },
  'list-workspaces': {
    summary: 'List every workspace, newest first.',
    usage: 'crm list-workspaces [--json]',
    options: {},
    flags: {},
    async run(_values, call) {
      const { workspaces } = await call('ListWorkspaces', {});
      return { json: workspaces, text: workspaces.length ? workspaces.map(describeWorkspace).join('\n') : 'No workspaces yet.' };
    },
  },
  'rotate-signing-key': {
    summary: 'Make a new access-token signing key current; the old one stays valid as the previous key.',
    usage:
      'crm rotate-signing-key [--json]\n\n' +
      'Every auth replica signs with the new key at once and every gateway accepts both, so no valid token is refused.\n' +
      'The key before the previous one is dropped: rotate at most once per access-token lifetime (1 h by default),\n' +
      'or the tokens it signed get 401 and their clients refresh. A key set by AUTH_JWT_PRIVATE_KEY is rotated by changing it.',
    options: {},
    flags: {},
    async run(_values, call) {
      const rotated = await call('RotateSigningKey', {});
      return { json: rotated, text: `Signing with key ${rotated.currentKid}; key ${rotated.previousKid} stays valid as the previous key.` };
    },
  },
};

function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    'Usage: crm <command> [options]',
    '',
    'Operator commands for the CRM; they call the running auth service.',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    // Routed by scripts/crm.js to libs/bus: it talks to RabbitMQ, not to auth.
    `  ${'dead-letters'.padEnd(width)}  List or replay messages that ran out of retries (RabbitMQ; crm dead-letters --help).`,
    '',
    'Options: --json (machine-readable output), --help (on any command).',
    '',
    'Environment:',
    '  AUTH_GRPC_ADDR      where the auth service listens (default: the address npm start wrote to',
    `                      <CRM_DATA_DIR>/auth-address, else ${DEFAULT_AUTH_ADDRESS})`,
    '  CRM_OPERATOR_TOKEN  the operator token (default: read from <CRM_DATA_DIR>/operator-token)',
    '  CRM_DATA_DIR        data folder of the running system (default ./data)',
  ].join('\n');
}

function operatorToken(env: NodeJS.ProcessEnv): string {
  if (env.CRM_OPERATOR_TOKEN) return env.CRM_OPERATOR_TOKEN.trim();
  const file = operatorTokenPath(env.CRM_DATA_DIR || './data');
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token) return token;
  } catch {
    // fall through to the message below
  }
  throw new ConfigProblem(
    `No operator token: set CRM_OPERATOR_TOKEN, or run where ${file} exists (the auth service writes it on its first start).`,
  );
}

/**
 * The CLI's internal certificate (identity `operator`, the only one auth's operator service takes):
 * CRM_OPERATOR_TLS_DIR, else the one `npm start` and the local cluster keep in the data folder.
 * INTERNAL_TLS=off talks plaintext to an auth started the same way.
 */
function operatorTls(env: NodeJS.ProcessEnv): InternalTls | null {
  if (env.INTERNAL_TLS === 'off') return null;
  const dir = env.CRM_OPERATOR_TLS_DIR || join(internalTlsRoot(env.CRM_DATA_DIR || './data'), 'operator');
  try {
    return loadInternalTlsAs(dir, 'operator');
  } catch (error) {
    throw new ConfigProblem(
      `No operator certificate (${(error as Error).message}): set CRM_OPERATOR_TLS_DIR to a folder with the operator's ca.crt, tls.crt and tls.key, or run where ${dir} exists.`,
    );
  }
}

class ConfigProblem extends Error {}

/** Runs one CLI invocation; returns the exit code. */
export async function runCli(
  argv: string[],
  io: Io = { env: process.env, out: (t) => process.stdout.write(`${t}\n`), err: (t) => process.stderr.write(`${t}\n`) },
): Promise<number> {
  const name = argv.find((a) => !a.startsWith('-'));
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    if (argv.includes('--help') || argv.includes('-h')) {
      io.out(mainHelp());
      return EXIT.ok;
    }
    io.err(`${name ? `Unknown command "${name}".` : 'No command given.'}\n\n${mainHelp()}`);
    return EXIT.usage;
  }

  let values: Values;
  try {
    const parsed = parseArgs({
      args: argv.filter((a) => a !== name),
      options: { ...COMMON, ...command.options },
      strict: true,
      allowPositionals: false,
    });
    values = parsed.values as Values;
  } catch (error) {
    io.err(`${(error as Error).message}\n\nUsage: ${command.usage}`);
    return EXIT.usage;
  }
  if (values.help) {
    io.out(`${command.summary}\n\nUsage: ${command.usage}`);
    return EXIT.ok;
  }

  let client: OperatorClient | undefined;
  try {
    const token = operatorToken(io.env);
    const address = resolveAuthAddress(io.env);
    const activeClient = new GrpcClient<authV1.AuthOperatorServiceMethods>(
      'auth/v1/auth.proto',
      authV1.AuthOperatorServiceName,
      address,
      operatorTls(io.env),
    );
    client = activeClient;
    const call: CallFn = (method, request) =>
      activeClient.call(
        method,
        request,
        { actorKind: 'operator', actorId: 'operator' },
        { metadata: { [OPERATOR_TOKEN_HEADER]: token }, timeoutMs: 15_000 },
      );
    const result = await command.run(values, call, io.env);
    io.out(values.json ? JSON.stringify(result.json, null, 2) : result.text);
    return EXIT.ok;
  } catch (error) {
    return report(error, command, values, io);
  } finally {
    client?.close();
  }
}

function report(error: unknown, command: Command, values: Values, io: Io): number {
  if (error instanceof UsageError) {
    io.err(`${error.message}\n\nUsage: ${command.usage}`);
    return EXIT.usage;
  }
  if (error instanceof ConfigProblem) {
    io.err(error.message);
    return EXIT.config;
  }
  if (!isDomainError(error)) throw error;
  if (values.json) io.err(JSON.stringify({ error: error.kind, message: error.message, fields: error.fields }));
  switch (error.kind) {
    case 'validation_failed':
      if (!values.json) {
        const lines = Object.entries(error.fields ?? {}).map(
          ([field, messages]) => `  ${command.flags[field] ?? field}: ${messages.join(' ')}`,
        );
        io.err(`Not accepted:\n${lines.join('\n')}`);
      }
      return EXIT.invalid;
    case 'permission_denied':
      if (!values.json)
        io.err('The auth service refused the operator token. Check CRM_OPERATOR_TOKEN or the operator-token file of the running system.');
      return EXIT.denied;
    case 'unavailable':
      if (!values.json)
        io.err(`Cannot reach the auth service at ${resolveAuthAddress(io.env)}. Is the CRM running? (AUTH_GRPC_ADDR sets the address.)`);
      return EXIT.unavailable;
    case 'not_found':
      if (!values.json) io.err('No such workspace.');
      return EXIT.failure;
    default:
      if (!values.json) io.err(`Failed: ${error.message}`);
      return EXIT.failure;
  }
}

/** The process entry: `node services/auth/dist/cli.js …` and `npm run crm -- …` (scripts/crm.js) both land here. */
export function main(argv: string[] = process.argv.slice(2)): void {
  runCli(argv).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`Unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(EXIT.failure);
    },
  );
}

if (require.main === module) main();
