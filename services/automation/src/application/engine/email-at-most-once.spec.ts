/**
 * A send_email step whose SMTP server answers only after the step's claim would have lapsed:
 * against a real SMTP server in the test, every path ends with the message received exactly once.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { createLogger } from '@crm/observability';
import { SmtpEmailTransport } from '../../adapters/email-transport';
import { NoAiWriter } from '../../adapters/ai-writer';
import type { EmailDocument, EnrollmentDocument } from '../../domain/model';
import { emails, enrollments } from '../../store/collections';
import { buildEngine, eventually, type EngineHarness } from '../../testing/automation-factory';
import { StepActions } from './step-actions';
import { StepDispatcher } from './step-dispatcher';
import { StepRunner } from './step-runner';

const WS = 'ws_smtp';
const CLAIM_MS = 300;
const logger = createLogger('email-at-most-once', { level: 'silent' });

/** An SMTP server that holds each message's final answer until `release()`. */
class SlowSmtpServer {
  readonly received: string[] = [];
  private readonly held: Array<() => void> = [];
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData: (stream, _session, callback) => {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
      stream.on('end', () => {
        this.received.push(data);
        if (this.holding) this.held.push(() => callback());
        else callback();
      });
    },
  });
  holding = true;

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  release(): void {
    this.holding = false;
    for (const answer of this.held.splice(0)) answer();
  }

  close(): Promise<void> {
    this.release();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('send_email sends at most once', () => {
  let engine: EngineHarness;
  let smtp: SlowSmtpServer;
  let smtpUrl: string;
  let transport: SmtpEmailTransport;

  beforeEach(async () => {
    engine = await buildEngine({ consume: false });
    smtp = new SlowSmtpServer();
    smtpUrl = await smtp.listen();
    transport = new SmtpEmailTransport(smtpUrl, 'CRM <automation@crm.test>', 5_000);
  });
  afterEach(async () => {
    transport.close();
    await smtp.close();
    await engine.close();
  });

  /** A worker: its own runner over the shared store, sending through the in-test SMTP server. */
  function worker(): StepRunner {
    const actions = new StepActions({
      repositories: engine.repositories,
      records: engine.records,
      directory: engine.directory,
      transport,
      ai: new NoAiWriter(),
      logger,
    });
    return new StepRunner(engine.repositories.runs, engine.records, actions, new StepDispatcher(engine.bus), logger, {
      waitScale: 1,
      claimLeaseMs: CLAIM_MS,
    });
  }

  async function enrollLeadInEmailRule(): Promise<EnrollmentDocument> {
    const rule = await engine.rules.createRule(
      { workspaceId: WS },
      {
        name: 'Welcome',
        trigger: 'lead_created',
        steps: [{ type: 'send_email', order: 1, config: { mode: 'template', templateId: 'lead_welcome' } }],
      },
    );
    await engine.rules.setActive({ workspaceId: WS }, rule.id, true);
    const lead = engine.records.put({ id: 'ld_1', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', status: 'new' });
    await engine.enroller.handle(
      (await engine.publishEvent('records.lead_created.v1', { workspaceId: WS, recordType: 'lead', recordId: 'ld_1', record: lead }))!,
    );
    const [enrollment] = await engine.store.forWorkspace(WS).find(enrollments, {});
    return enrollment!;
  }

  const emailOf = async (enrollment: EnrollmentDocument): Promise<EmailDocument> =>
    (
      await engine.store.forWorkspace(WS).find(emails, { where: [{ field: 'relatedTo', op: 'eq', value: enrollment.enrolledRecordId }] })
    )[0]!;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('keeps its claim while the SMTP server is slow, so no other worker takes the step over', async () => {
    const enrollment = await enrollLeadInEmailRule();
    const first = worker().runStep(WS, enrollment.id, 0);
    await eventually(async () => smtp.received.length === 1);
    await sleep(CLAIM_MS * 4); // the claim's first lease is long gone; only renewal holds it

    expect(await worker().runStep(WS, enrollment.id, 0)).toBeNull();
    expect(await engine.sweeper.sweep()).toBe(0);
    smtp.release();
    await first;

    expect(smtp.received).toHaveLength(1);
    expect((await emailOf(enrollment)).status).toBe('sent');
    const run = (await engine.store.forWorkspace(WS).get(enrollments, enrollment.id))!;
    expect(run.status).toBe('completed');
    expect(run.stepResults[0]!.detail).toMatch(/sent to ada@example.com/);
  });

  it('reports an email found mid-send by a later claim as unknown and does not send it again', async () => {
    const enrollment = await enrollLeadInEmailRule();
    const first = worker().runStep(WS, enrollment.id, 0);
    await eventually(async () => smtp.received.length === 1);
    // The first worker's renewals stop reaching the store (as in a partition): its claim lapses.
    await engine.store.forWorkspace(WS).update(enrollments, enrollment.id, { set: { claimToken: 'lost', claimUntil: 0 } });

    await worker().runStep(WS, enrollment.id, 0);
    const afterRetake = (await engine.store.forWorkspace(WS).get(enrollments, enrollment.id))!;
    expect(afterRetake.status).toBe('completed');
    expect(afterRetake.stepResults[0]!.detail).toMatch(/outcome unknown .*not sent again/);
    expect((await emailOf(enrollment)).status).toBe('unknown');

    smtp.release();
    await first;
    expect(smtp.received).toHaveLength(1);
    // The first send did finish: the email says what really happened.
    expect((await emailOf(enrollment)).status).toBe('sent');
  });

  it('marks a send that outlasts the SMTP timeout unknown, and a rerun of the step does not send it again', async () => {
    transport.close();
    transport = new SmtpEmailTransport(smtpUrl, 'CRM <automation@crm.test>', 200);
    const enrollment = await enrollLeadInEmailRule();
    await worker().runStep(WS, enrollment.id, 0);
    expect((await emailOf(enrollment)).status).toBe('unknown');

    // The same step claimed again (a worker that died before moving the run on).
    await engine.store.forWorkspace(WS).update(enrollments, enrollment.id, {
      set: { status: 'in_progress', stepIndex: 0, claimUntil: 0, claimToken: null, completedAt: null },
    });
    await worker().runStep(WS, enrollment.id, 0);
    smtp.release();
    await sleep(50);
    expect(smtp.received).toHaveLength(1);
    expect((await emailOf(enrollment)).status).toBe('unknown');
  });
});
