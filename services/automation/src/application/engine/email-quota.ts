/**
 * The plan's daily email quota (PLAN_QUOTAS.emailsPerDay, days in UTC): a send_email step takes one
 * email from the workspace's count for the day before it writes or sends anything, by a conditional
 * increment (count below the quota), so racing workers never pass it together. Past it the step
 * fails with the reason. A reservation whose email then fails still counts: the quota errs towards
 * sending fewer. Each day is one small document; a workspace's new day deletes its older ones.
 */
import { planQuotas } from '@crm/vocabulary';
import { StoreError, type ScopedStore } from '@crm/store';
import { emailQuotaDays } from '../../store/collections';
import { StepFailure } from './step-outcome';

export class EmailQuota {
  async reserve(scoped: ScopedStore, workspaceId: string, plan: string, now: Date): Promise<void> {
    const quota = planQuotas(plan).emailsPerDay;
    const day = now.toISOString().slice(0, 10);
    for (let attempt = 0; attempt < 3; attempt++) {
      const taken = await scoped.update(
        emailQuotaDays,
        day,
        { inc: { count: 1 } },
        { where: [{ field: 'count', op: 'lt', value: quota }] },
      );
      if (taken) return;
      if (await scoped.get(emailQuotaDays, day)) {
        throw new StepFailure(
          `Not sent: the workspace's daily email quota (${quota} a day on the ${plan} plan, UTC days) is used up; sending resumes tomorrow.`,
        );
      }
      try {
        await scoped.commit([
          { kind: 'deleteMany', collection: emailQuotaDays, where: [{ field: 'id', op: 'lt', value: day }] },
          { kind: 'insert', collection: emailQuotaDays, document: { id: day, workspaceId, count: 0 } },
        ]);
      } catch (error) {
        if (!(error instanceof StoreError && error.code === 'duplicate')) throw error; // another worker opened the day
      }
    }
    // Not a StepFailure: the step is retried.
    throw new Error('The daily email count could not be updated.');
  }
}
