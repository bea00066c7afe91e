/**
 * Enrollment: a records event arrives, every active rule of the workspace whose trigger it raises
 * and whose trigger conditions hold enrolls the record. The enrollment, its execution log (the same
 * document) and the rule's enrolledCount move in one commit; the enrollment's id is derived from
 * (event, rule), so a redelivered event enrolls nobody twice, and a sparse unique key on
 * (rule, record) while in progress keeps a record in a rule at most once at a time.
 */
import { apiTimestamp, eventsOfGroup, systemClock, type Clock } from '@crm/vocabulary';
import { newMessage, type BusMessage } from '@crm/bus';
import type { Logger } from '@crm/observability';
import { allHold } from '../../domain/conditions';
import { derivedId, ID_PREFIX } from '../../domain/ids';
import { automationCorrelationId, causeOf, loopRefusal } from '../../domain/loop-guard';
import type { EnrollmentDocument, RuleDocument, TriggerKind } from '../../domain/model';
import { dueAtOnReaching } from '../../domain/schedule';
import { EVENT_FIELDS, messageWorkspaceId, TRIGGERS, triggersForEvent } from '../../domain/triggers';
import type { AutomationRepositories } from '../../store/repositories';
import type { StepDispatcher } from './step-dispatcher';

interface RecordEventPayload {
  workspaceId?: string;
  recordType?: string;
  recordId?: string;
  record?: Record<string, unknown>;
  [key: string]: unknown;
}

export class Enroller {
  constructor(
    private readonly repositories: Pick<AutomationRepositories, 'rules' | 'runs'>,
    private readonly dispatcher: StepDispatcher,
    private readonly logger: Logger,
    private readonly waitScale: number,
    private readonly clock: Clock = systemClock,
  ) {}

  async handle(message: BusMessage): Promise<void> {
    // One read of the active rules per message, however many records it carries.
    const activeRules = new Map<string, Promise<RuleDocument[]>>();
    const events = eventsOfGroup(message);
    // A group (an import chunk's 500 contacts, a batch write's 1,000 records) in a workspace with no
    // active rule its events could raise enrolls nobody: not worth going through event by event.
    if (events.length > 1 && !(await this.anyRuleFor(messageWorkspaceId(message), events, activeRules))) return;
    for (const event of events) await this.handleEvent(event, activeRules);
  }

  /** Whether the workspace has an active rule any of these events could enroll in (a group's are all of one workspace). */
  private async anyRuleFor(
    workspaceId: string | undefined,
    events: BusMessage[],
    activeRules: Map<string, Promise<RuleDocument[]>>,
  ): Promise<boolean> {
    if (!workspaceId) return true;
    const triggers = [...new Set(events.flatMap((event) => triggersForEvent(event.type)))];
    return triggers.length > 0 && (await this.rulesFor(workspaceId, triggers, activeRules)).length > 0;
  }

  private rulesFor(
    workspaceId: string,
    triggers: TriggerKind[],
    activeRules: Map<string, Promise<RuleDocument[]>>,
  ): Promise<RuleDocument[]> {
    const key = `${workspaceId}\n${triggers.join(',')}`;
    let read = activeRules.get(key);
    if (!read) {
      read = this.repositories.rules.activeRulesFor(workspaceId, triggers);
      activeRules.set(key, read);
    }
    return read;
  }

  private async handleEvent(message: BusMessage, activeRules: Map<string, Promise<RuleDocument[]>>): Promise<void> {
    const triggers = triggersForEvent(message.type);
    if (triggers.length === 0) return;
    const payload = message.payload as RecordEventPayload;
    const { workspaceId, recordId, record } = payload;
    if (!workspaceId || !recordId || !record) {
      this.logger.warn({ messageId: message.id, type: message.type }, 'records event without workspace, record id or record; ignored');
      return;
    }
    const active = await this.rulesFor(workspaceId, triggers, activeRules);
    // The cause, not the correlation id: a client's X-Request-Id becomes a correlation id, never a cause.
    const cause = causeOf(message.cause);
    for (const rule of active) {
      const refusal = loopRefusal(cause, rule.id);
      if (refusal) {
        this.logger.info({ ruleId: rule.id, recordId, correlationId: message.correlationId }, refusal);
        continue;
      }
      const fields = { ...record, ...eventFields(rule.trigger, payload) };
      if (!allHold(rule.triggerConditions, fields)) continue;
      await this.enroll(rule, recordId, message, automationCorrelationId(cause, rule.id, derivedId(ID_PREFIX.log, message.id, rule.id)));
    }
  }

  private async enroll(rule: RuleDocument, recordId: string, message: BusMessage, correlationId: string): Promise<void> {
    const now = this.clock().getTime();
    const first = rule.steps[0]!;
    const enrollment: EnrollmentDocument = {
      id: derivedId(ID_PREFIX.log, message.id, rule.id),
      workspaceId: rule.workspaceId,
      ruleId: rule.id,
      ruleName: rule.name,
      enrolledRecordType: TRIGGERS[rule.trigger].recordType,
      enrolledRecordId: recordId,
      status: 'in_progress',
      activeKey: `${rule.id}:${recordId}`,
      sourceEventId: message.id,
      steps: rule.steps,
      exitConditions: rule.exitConditions,
      stepIndex: 0,
      dueAt: dueAtOnReaching(first, now, this.waitScale),
      claimUntil: null,
      claimToken: null,
      actingToken: null,
      exit: null,
      lastClaim: null,
      attempts: 0,
      assignment: null,
      completedSteps: 0,
      totalSteps: rule.steps.length,
      stepResults: [],
      reason: null,
      startedAt: apiTimestamp(new Date(now)),
      completedAt: null,
      correlationId,
    };
    // Refused when the event was redelivered, the record is already in this rule, or the rule was
    // deactivated or deleted since it was read: nobody enrolls.
    if (!(await this.repositories.runs.enroll(enrollment))) return;
    await this.dispatcher.dispatch(
      newMessage(
        'automation.step_due.v1',
        { workspaceId: rule.workspaceId, executionLogId: enrollment.id, stepIndex: 0, dueAt: enrollment.dueAt! },
        { correlationId },
      ),
    );
  }
}

function eventFields(trigger: TriggerKind, payload: RecordEventPayload): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(EVENT_FIELDS[trigger] ?? {})) if (field in payload) out[field] = payload[field];
  return out;
}
