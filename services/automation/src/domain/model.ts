/**
 * The automation service's documents as stored and as the rules see them. A rule's conditions and
 * steps are kept exactly as validated; an enrollment (shown to clients as an execution log) keeps
 * the steps it started with, so editing a rule affects new enrollments only.
 */

// Trigger kinds, operators, step types, wait units, log statuses and template categories are the
// CRM's vocabulary (libs/vocabulary), shared with the gateway.
export {
  CONDITION_OPERATORS,
  LOG_STATUSES,
  STEP_TYPES,
  TEMPLATE_CATEGORIES,
  TRIGGER_KINDS,
  WAIT_UNITS,
  type ConditionOperator,
  type LogStatus,
  type StepType,
  type TriggerKind,
  type WaitUnit,
} from '@crm/vocabulary';
import type { ConditionOperator, LogStatus, StepType, TriggerKind, WaitUnit } from '@crm/vocabulary';

export type RecordType = 'lead' | 'contact' | 'opportunity';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface Condition {
  field: string;
  operator: ConditionOperator;
  /** Absent for is_empty / is_not_empty. */
  value?: JsonValue;
}

export interface SendEmailConfig {
  mode: 'template' | 'ai_generated';
  templateId?: string;
  prompt?: string;
  /** Optional subject line (placeholders allowed); a default is made from the template otherwise. */
  subject?: string;
}
export interface WaitConfig {
  duration: number;
  unit: WaitUnit;
}
export interface CreateTaskConfig {
  name: string;
  /** `assigned_user` (the record's owner) or a user id. */
  assignTo: string;
  dueDays: number;
}
export interface AssignUserConfig {
  mode: 'round_robin';
  userIds: string[];
}
export interface SendNotificationConfig {
  /** `assigned_user` (the record's owner) or user ids. */
  recipients: string[];
  message: string;
}

export type Step =
  | { type: 'send_email'; order: number; config: SendEmailConfig; label?: string }
  | { type: 'wait'; order: number; config: WaitConfig; label?: string }
  | { type: 'create_task'; order: number; config: CreateTaskConfig; label?: string }
  | { type: 'assign_user'; order: number; config: AssignUserConfig; label?: string }
  | { type: 'send_notification'; order: number; config: SendNotificationConfig; label?: string };

/** What a rule or a template defines: the part a template install copies. */
export interface RuleDefinition {
  name: string;
  trigger: TriggerKind;
  triggerConditions: Condition[];
  exitConditions: Condition[];
  steps: Step[];
}

export interface RuleDocument extends RuleDefinition {
  id: string;
  workspaceId: string;
  isActive: boolean;
  enrolledCount: number;
  /** Round-robin position of assign_user steps, keyed `s<order>`; moved only by atomic increments. */
  roundRobin: Record<string, number>;
  installedFromTemplateId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface TemplateDefinition extends RuleDefinition {
  id: string;
  description: string;
  category: string;
}

export interface CustomTemplateDocument extends TemplateDefinition {
  workspaceId: string;
  installCount: number;
  createdAt: string;
}

/** The exit condition that ended (or, while a step is acting, will end) a run, and when it was found to hold. */
export interface RunExit {
  condition: Condition;
  metAt: string;
}

export interface StepResult {
  order: number;
  type: StepType;
  status: 'completed' | 'skipped' | 'failed';
  detail: string;
  finishedAt: string;
  /** Internal: how late the step started after it fell due (ms), for the bench's lateness figures. */
  lateMs?: number;
}

/**
 * One record's run through one rule: the execution log clients read, and the engine's cursor.
 * `stepIndex` is the next step to run (0-based) and `dueAt` (Unix ms) when; the sweeper re-publishes
 * whatever is overdue, and a step runs only after claiming (stepIndex, claim) with a conditional update.
 */
export interface EnrollmentDocument {
  id: string;
  workspaceId: string;
  ruleId: string;
  ruleName: string;
  enrolledRecordType: RecordType;
  enrolledRecordId: string;
  status: LogStatus;
  /** False from the run's failure until `automation.run_failed.v1` is published (then removed): the sweeper publishes what a crash left. */
  failureAnnounced?: boolean;
  /** `<ruleId>:<recordId>` while in progress, null after: a sparse unique index keeps one at a time. */
  activeKey: string | null;
  /** The message that caused the enrollment, so a redelivered event enrolls nobody twice. */
  sourceEventId: string;
  steps: Step[];
  exitConditions: Condition[];
  stepIndex: number;
  dueAt: number | null;
  /** Unix ms until which a worker holds the current step; null when nobody does. */
  claimUntil: number | null;
  claimToken: string | null;
  /**
   * The claim token of a step past its last check and about to act (or acting); null otherwise.
   * An exit does not end the run under such a step: it is left in `exit` and that step's end applies it.
   */
  actingToken?: string | null;
  /** The exit condition that ended the run (or will, when the acting step ends); null when none has held. */
  exit?: RunExit | null;
  /** The step index and time of the latest claim: a claim of the same step again means an earlier attempt may have had effects. */
  lastClaim: { stepIndex: number; at: number } | null;
  /** Transient failures of the current step so far (records or auth unreachable); reset when it advances. */
  attempts: number;
  /** The user an assign_user step chose, kept so a retried step assigns the same one. */
  assignment: { stepIndex: number; userId: string } | null;
  completedSteps: number;
  totalSteps: number;
  stepResults: StepResult[];
  reason: string | null;
  startedAt: string;
  completedAt: string | null;
  correlationId: string;
}

export type EmailStatus = 'queued' | 'sending' | 'sent' | 'failed' | 'unknown';

export interface EmailDocument {
  id: string;
  workspaceId: string;
  to: string;
  subject: string;
  body: string;
  mode: 'template' | 'ai_generated';
  /**
   * queued → sending (compare-and-set, just before the transport is called) → sent | failed, or
   * unknown when the send broke off, or a later claim of the step found it still `sending` (its
   * worker stopped mid-send): an unknown email is reported, never sent again.
   */
  status: EmailStatus;
  relatedTo: string;
  ruleId: string;
  executionLogId: string;
  error: string | null;
  createdAt: string;
}

export interface NotificationDocument {
  id: string;
  workspaceId: string;
  recipient: string;
  message: string;
  relatedTo: string;
  ruleId: string;
  executionLogId: string;
  createdAt: string;
}
