/**
 * What each step type does, given the freshly read record. Every side effect is keyed by
 * (enrollment, step) so that a step run again after a crash does not repeat it:
 * - emails and notifications get ids derived from the enrollment and step (a second insert is a
 *   duplicate); an email is sent at most once (email-delivery.ts);
 * - create_task, whose records call takes no key, looks for the task an earlier attempt of the
 *   same step made before creating one (only when this is such a re-run);
 * - assign_user keeps its round-robin choice on the enrollment, so a re-run assigns the same user.
 */
import { apiTimestamp } from '@crm/vocabulary';
import { isDomainError, type Logger } from '@crm/observability';
import type { RecordsGateway } from '../../adapters/records-gateway';
import type { DirectoryUser, WorkspaceDirectory } from '../../adapters/workspace-directory';
import type { AiWriter } from '../../adapters/ai-writer';
import type { EmailTransport } from '../../adapters/email-transport';
import { findEmailTemplate } from '../../domain/email-templates';
import { derivedId, ID_PREFIX } from '../../domain/ids';
import type { EmailDocument, EnrollmentDocument, NotificationDocument, Step } from '../../domain/model';
import { mergePlaceholders, type MergeContext } from '../../domain/placeholders';
import { dateAfterDays } from '../../domain/time';
import type { AutomationRepositories } from '../../store/repositories';
import { EmailDelivery } from './email-delivery';
import { EmailQuota } from './email-quota';
import { StepFailure, type StepOutcome } from './step-outcome';

export { StepFailure, type StepOutcome } from './step-outcome';

export interface StepRun {
  enrollment: EnrollmentDocument;
  step: Step;
  stepIndex: number;
  record: Record<string, unknown>;
  /** True when an earlier attempt of this same step claimed it and may have had effects. */
  rerun: boolean;
  claimToken: string;
  now: Date;
}

export interface StepActionsDeps {
  repositories: Pick<AutomationRepositories, 'rules' | 'runs' | 'emails' | 'notifications'>;
  records: RecordsGateway;
  directory: WorkspaceDirectory;
  transport: EmailTransport;
  ai: AiWriter;
  logger: Logger;
}

export class StepActions {
  private readonly delivery: EmailDelivery;
  private readonly quota: EmailQuota;

  constructor(private readonly deps: StepActionsDeps) {
    this.delivery = new EmailDelivery(deps.repositories.emails, deps.transport, deps.logger);
    this.quota = new EmailQuota(deps.repositories.emails);
  }

  async run(run: StepRun): Promise<StepOutcome> {
    const step = run.step;
    switch (step.type) {
      case 'wait':
        return { status: 'completed', detail: `Waited ${step.config.duration} ${step.config.unit}.` };
      case 'send_email':
        return this.sendEmail(run, step);
      case 'create_task':
        return this.createTask(run, step);
      case 'assign_user':
        return this.assignUser(run, step);
      case 'send_notification':
        return this.sendNotification(run, step);
      default: {
        const unreachable: never = step;
        throw new StepFailure(`Unknown step type ${JSON.stringify((unreachable as Step).type)}.`);
      }
    }
  }

  private async mergeContext(run: StepRun): Promise<MergeContext> {
    const { workspaceId, enrolledRecordType } = run.enrollment;
    const ownerId = typeof run.record.assignedTo === 'string' ? run.record.assignedTo : null;
    const [workspaceName, owners] = await Promise.all([
      this.deps.directory.workspaceName(workspaceId),
      ownerId ? this.deps.directory.users(workspaceId, [ownerId]) : Promise.resolve(new Map<string, DirectoryUser>()),
    ]);
    const owner = ownerId ? owners.get(ownerId) : undefined;
    return { recordType: enrolledRecordType, record: run.record, workspace: { name: workspaceName }, owner: owner ?? null };
  }

  /** Who an email about this record goes to: the lead or contact itself, an opportunity's first contact. */
  private async emailRecipient(run: StepRun): Promise<{ address: string; person: Record<string, unknown> } | { skip: string }> {
    const { enrollment, record } = run;
    let person = record;
    if (enrollment.enrolledRecordType === 'opportunity') {
      const contactIds = Array.isArray(record.contactIds) ? (record.contactIds as string[]) : [];
      if (contactIds.length === 0) return { skip: 'The opportunity has no linked contact to email.' };
      const contact = await this.deps.records.getRecord(enrollment.workspaceId, 'contact', contactIds[0]!, enrollment.correlationId);
      if (!contact) return { skip: "The opportunity's contact no longer exists." };
      person = contact;
    }
    if (person.emailOptOut === true) return { skip: 'Not sent: the recipient opted out of email (emailOptOut).' };
    if (person.emailBounced === true) return { skip: 'Not sent: earlier email to the recipient bounced (emailBounced).' };
    if (typeof person.email !== 'string' || !person.email) return { skip: 'Not sent: the recipient has no email address.' };
    return { address: person.email, person };
  }

  private async sendEmail(run: StepRun, step: Extract<Step, { type: 'send_email' }>): Promise<StepOutcome> {
    const emails = this.deps.repositories.emails;
    const id = derivedId(ID_PREFIX.email, run.enrollment.id, String(run.stepIndex));
    let email = run.rerun ? await emails.get(run.enrollment.workspaceId, id) : null;
    if (!email) {
      const recipient = await this.emailRecipient(run);
      if ('skip' in recipient) return { status: 'skipped', detail: recipient.skip };
      const workspaceId = run.enrollment.workspaceId;
      await this.quota.reserve(workspaceId, await this.deps.directory.plan(workspaceId), run.now);
      const { subject, body } = await this.writeEmail(run, step);
      const document: EmailDocument = {
        id,
        workspaceId: run.enrollment.workspaceId,
        to: recipient.address,
        subject,
        body,
        mode: step.config.mode,
        status: 'queued',
        relatedTo: run.enrollment.enrolledRecordId,
        ruleId: run.enrollment.ruleId,
        executionLogId: run.enrollment.id,
        error: null,
        createdAt: apiTimestamp(run.now),
      };
      email = await emails.insertOnce(document);
    }
    return this.delivery.deliver(email);
  }

  private async writeEmail(run: StepRun, step: Extract<Step, { type: 'send_email' }>): Promise<{ subject: string; body: string }> {
    const context = await this.mergeContext(run);
    if (step.config.mode === 'template') {
      const template = findEmailTemplate(step.config.templateId ?? '');
      if (!template) throw new StepFailure(`Unknown email template "${step.config.templateId ?? ''}".`);
      return {
        subject: mergePlaceholders(step.config.subject ?? template.subject, context),
        body: mergePlaceholders(template.body, context),
      };
    }
    if (this.deps.ai.missing) throw new StepFailure(this.deps.ai.missing);
    const written = await this.deps.ai.write(mergePlaceholders(step.config.prompt ?? '', context)).catch((error: unknown) => {
      throw new StepFailure(`The model provider could not write the email: ${(error as Error).message}`);
    });
    return { subject: step.config.subject ? mergePlaceholders(step.config.subject, context) : written.subject, body: written.body };
  }

  private ownerOf(record: Record<string, unknown>): string | null {
    return typeof record.assignedTo === 'string' && record.assignedTo ? record.assignedTo : null;
  }

  private async createTask(run: StepRun, step: Extract<Step, { type: 'create_task' }>): Promise<StepOutcome> {
    const { enrollment } = run;
    const context = await this.mergeContext(run);
    const name = mergePlaceholders(step.config.name, context).slice(0, 200);
    const dueDate = dateAfterDays(run.now, step.config.dueDays);
    const assignedTo = step.config.assignTo === 'assigned_user' ? this.ownerOf(run.record) : step.config.assignTo;
    if (run.rerun && enrollment.lastClaim) {
      const since = apiTimestamp(new Date(enrollment.lastClaim.at - 1000));
      const earlier = (
        await this.deps.records.listTasks(enrollment.workspaceId, enrollment.enrolledRecordId, enrollment.correlationId)
      ).find((task) => task.name === name && task.createdAt >= since);
      if (earlier) return { status: 'completed', detail: `Task ${earlier.id} was created by an earlier attempt.` };
    }
    try {
      const task = await this.deps.records.createTask(
        enrollment.workspaceId,
        { name, dueDate, assignedTo, relatedTo: enrollment.enrolledRecordId },
        enrollment.correlationId,
      );
      return {
        status: 'completed',
        detail: `Task ${task.id} created, due ${dueDate}${assignedTo ? `, assigned to ${assignedTo}` : ', unassigned (the record has no owner)'}.`,
      };
    } catch (error) {
      if (isDomainError(error) && error.kind === 'validation_failed') {
        throw new StepFailure(`The task was refused: ${JSON.stringify(error.fields ?? error.message)}`);
      }
      throw error;
    }
  }

  private async assignUser(run: StepRun, step: Extract<Step, { type: 'assign_user' }>): Promise<StepOutcome> {
    const { enrollment } = run;
    const userIds = step.config.userIds;
    if (userIds.length === 0) throw new StepFailure('No users to assign: choose userIds for this step.');
    let userId = enrollment.assignment?.stepIndex === run.stepIndex ? enrollment.assignment.userId : undefined;
    if (!userId) {
      // One atomic increment per assignment: concurrent enrollments each get their own turn.
      const rule = await this.deps.repositories.rules.takeRoundRobinTurn(enrollment.workspaceId, enrollment.ruleId, step.order);
      if (!rule) throw new StepFailure('The rule was deleted.');
      const turn = rule.roundRobin[`s${step.order}`] ?? 1;
      userId = userIds[(turn - 1) % userIds.length]!;
      await this.deps.repositories.runs.recordAssignment(enrollment.workspaceId, enrollment.id, run.claimToken, {
        stepIndex: run.stepIndex,
        userId,
      });
    }
    try {
      await this.deps.records.assignOwner(
        enrollment.workspaceId,
        enrollment.enrolledRecordType,
        enrollment.enrolledRecordId,
        userId,
        enrollment.correlationId,
      );
    } catch (error) {
      if (isDomainError(error) && error.kind === 'validation_failed') {
        throw new StepFailure(`Could not assign ${userId}: ${JSON.stringify(error.fields ?? error.message)}`);
      }
      throw error;
    }
    return { status: 'completed', detail: `Assigned to ${userId} (round robin).` };
  }

  private async sendNotification(run: StepRun, step: Extract<Step, { type: 'send_notification' }>): Promise<StepOutcome> {
    const { enrollment } = run;
    const recipients = new Set<string>();
    for (const recipient of step.config.recipients) {
      const resolved = recipient === 'assigned_user' ? this.ownerOf(run.record) : recipient;
      if (resolved) recipients.add(resolved);
    }
    if (recipients.size === 0) return { status: 'skipped', detail: 'No recipient: the record has no owner.' };
    const message = mergePlaceholders(step.config.message, await this.mergeContext(run));
    const createdAt = apiTimestamp(run.now);
    const ids: string[] = [];
    for (const recipient of recipients) {
      const notification: NotificationDocument = {
        id: derivedId(ID_PREFIX.notification, enrollment.id, String(run.stepIndex), recipient),
        workspaceId: enrollment.workspaceId,
        recipient,
        message,
        relatedTo: enrollment.enrolledRecordId,
        ruleId: enrollment.ruleId,
        executionLogId: enrollment.id,
        createdAt,
      };
      await this.deps.repositories.notifications.insertOnce(notification);
      ids.push(notification.id);
    }
    return { status: 'completed', detail: `Notified ${[...recipients].join(', ')}.` };
  }
}
