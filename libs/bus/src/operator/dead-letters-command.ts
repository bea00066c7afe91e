/**
 * `crm dead-letters list|replay`: what an operator does with messages that ran out of retries.
 * It talks to RabbitMQ directly (AMQP_URL, with the deployment's CRM_BUS_EXCHANGE and
 * CRM_QUEUE_PREFIX): dead letters live in the broker, not in any one service, and every queue's
 * are handled the same way. The in-process bus (npm start without AMQP_URL) keeps its dead
 * letters in memory and logs them; there is nothing to replay there.
 */
import { parseArgs } from 'node:util';
import { DeadLetterQueue, type DeadLetterSummary } from '../amqp/dead-letter-queue';
import { busLocationFromEnv } from '../open-bus';

export const DEAD_LETTERS_EXIT = { ok: 0, failure: 1, usage: 64, unavailable: 69, config: 78 } as const;

export interface CommandIo {
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
}

const DEFAULT_LIMIT = 50;

export const DEAD_LETTERS_SUMMARY = 'List or replay messages that ran out of retries (RabbitMQ only).';

const USAGE = `crm dead-letters list --queue <queue> [--limit <n>] [--json]
crm dead-letters replay --queue <queue> (--id <message id> ... | --all) [--json]

A message whose handler keeps failing is delivered again after growing delays (1 s, 5 s, 15 s, 30 s,
then every minute) until its queue's retry budget runs out (import chunks: CHUNK_RETRY_BUDGET_MS,
10 min by default); a permanent failure goes at once. It then waits in <queue>.dead, counted by
the bus_messages_dead_lettered_total and bus_dead_letter_depth metrics.

  list    shows up to --limit (default ${DEFAULT_LIMIT}) dead letters of the queue, oldest first,
          without taking them: id, type, correlation id (an import's job uid), why and when.
  replay  puts the chosen dead letters (--id, repeatable, or --all) back into their queue with a
          fresh retry budget. Handlers are idempotent, so replaying a message whose work was
          done meanwhile changes nothing. Fix the cause first (a service down, a bad setting).

Queues: import.chunks, import.splits, automation.events, automation.steps (without the prefix).

Environment:
  AMQP_URL           the broker (required)
  CRM_BUS_EXCHANGE   the deployment's exchange, if not crm.events
  CRM_QUEUE_PREFIX   the deployment's queue prefix, if any`;

class UsageError extends Error {}

export async function runDeadLettersCommand(argv: string[], io: CommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        queue: { type: 'string' },
        limit: { type: 'string' },
        id: { type: 'string', multiple: true },
        all: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\nUsage: ${USAGE}`);
    return DEAD_LETTERS_EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(`${DEAD_LETTERS_SUMMARY}\n\nUsage: ${USAGE}`);
    return DEAD_LETTERS_EXIT.ok;
  }
  const location = busLocationFromEnv(io.env.AMQP_URL, io.env);
  if (location.kind !== 'amqp') {
    io.err('AMQP_URL is not set. Dead letters live in RabbitMQ; with the in-process bus (no AMQP_URL) they are only logged.');
    return DEAD_LETTERS_EXIT.config;
  }
  let queue: DeadLetterQueue | undefined;
  try {
    const request = requestOf(values, positionals);
    try {
      queue = await DeadLetterQueue.open(location.url, `${location.queuePrefix ?? ''}${request.queue}`);
    } catch (error) {
      io.err(`Cannot reach RabbitMQ: ${(error as Error).message}`);
      return DEAD_LETTERS_EXIT.unavailable;
    }
    return await perform(queue, request, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\nUsage: ${USAGE}`);
      return DEAD_LETTERS_EXIT.usage;
    }
    // A passive declare of a queue that does not exist closes the channel with 404.
    if (/NOT_FOUND/.test((error as Error).message)) {
      io.err(`No queue ${values.queue} on this broker (check CRM_QUEUE_PREFIX and CRM_BUS_EXCHANGE).`);
      return DEAD_LETTERS_EXIT.failure;
    }
    io.err(`Failed: ${(error as Error).message}`);
    return DEAD_LETTERS_EXIT.failure;
  } finally {
    await queue?.close();
  }
}

/** What the command line asks for, checked (a UsageError says what is wrong). */
interface DeadLettersRequest {
  action: 'list' | 'replay';
  queue: string;
  limit: number;
  ids: string[];
  all: boolean;
  json: boolean;
}

function requestOf(
  values: { queue?: string; limit?: string; id?: string[]; all?: boolean; json?: boolean },
  positionals: string[],
): DeadLettersRequest {
  const [action, ...extra] = positionals;
  if (action !== 'list' && action !== 'replay') throw new UsageError(action ? `Unknown action "${action}".` : 'No action given.');
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}".`);
  if (!values.queue) throw new UsageError('--queue is required.');
  const limit = values.limit === undefined ? DEFAULT_LIMIT : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new UsageError('--limit must be a whole number from 1 to 10000.');
  const ids = values.id ?? [];
  if (action === 'replay' && !values.all && ids.length === 0) throw new UsageError('replay needs --id <message id> or --all.');
  if (action === 'replay' && values.all && ids.length > 0) throw new UsageError('give either --id or --all, not both.');
  return { action, queue: values.queue, limit, ids, all: values.all ?? false, json: values.json ?? false };
}

/** Lists or replays; the exit code (failure when a replay missed an id). */
async function perform(queue: DeadLetterQueue, request: DeadLettersRequest, io: CommandIo): Promise<number> {
  if (request.action === 'list') {
    const { total, letters } = await queue.list(request.limit);
    io.out(request.json ? JSON.stringify({ queue: request.queue, total, letters }, null, 2) : listText(request.queue, total, letters));
    return DEAD_LETTERS_EXIT.ok;
  }
  const wanted = new Set(request.ids);
  const replayed = await queue.replay(request.all ? undefined : (letter) => wanted.has(letter.id));
  const missing = request.ids.filter((id) => !replayed.some((letter) => letter.id === id));
  io.out(
    request.json
      ? JSON.stringify({ queue: request.queue, replayed, missing }, null, 2)
      : `Replayed ${replayed.length} message(s) into ${request.queue}.${missing.length ? `\nNot found: ${missing.join(', ')}` : ''}`,
  );
  return missing.length > 0 ? DEAD_LETTERS_EXIT.failure : DEAD_LETTERS_EXIT.ok;
}

function listText(queue: string, total: number, letters: DeadLetterSummary[]): string {
  if (total === 0) return `No dead letters in ${queue}.`;
  const lines = letters.map(
    (l) => `${l.id}  ${l.type}  correlation=${l.correlationId}  ${l.reason}${l.deadAt ? ` at ${l.deadAt}` : ''}  retries=${l.retries}`,
  );
  const more = total > letters.length ? `\n... and ${total - letters.length} more (--limit)` : '';
  return `${total} dead letter(s) in ${queue}:\n${lines.join('\n')}${more}`;
}

/** The process entry, for scripts/crm.js. */
export function main(argv: string[]): void {
  runDeadLettersCommand(argv, {
    env: process.env,
    out: (t) => process.stdout.write(`${t}\n`),
    err: (t) => process.stderr.write(`${t}\n`),
  }).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`Unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(DEAD_LETTERS_EXIT.failure);
    },
  );
}
