/**
 * The plan's daily email quota (PLAN_QUOTAS.emailsPerDay, days in UTC): a send_email step takes one
 * email from the workspace's count for the day before it writes or sends anything, by a conditional
 * increment (count below the quota), so racing workers never pass it together. Past it the step
 * fails with the reason. A reservation whose email then fails still counts: the quota errs towards
 * sending fewer. Each day is one small document; a workspace's new day deletes its older ones.
 */
import { planQuotas } from '@crm/vocabulary';
import type { EmailRepository } from '../../store/email-repository';
import { StepFailure } from './step-outcome';

export class EmailQuota {
  constructor(private readonly emails: EmailRepository) {}

  async reserve(workspaceId: string, plan: string, now: Date): Promise<void> {
    const quota = planQuotas(plan).emailsPerDay;
    const day = now.toISOString().slice(0, 10);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.emails.takeFromDailyQuota(workspaceId, day, quota)) return;
      if (await this.emails.dailyCountOpen(workspaceId, day)) {
        throw new StepFailure(
          `Not sent: the workspace's daily email quota (${quota} a day on the ${plan} plan, UTC days) is used up; sending resumes tomorrow.`,
        );
      }
      await this.emails.openDailyCount(workspaceId, day); // another worker may have opened it first
    }
    // Not a StepFailure: the step is retried.
    throw new Error('The daily email count could not be updated.');
  }
}
