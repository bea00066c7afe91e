/** A workspace's automation rules: read, written, switched on and off, and their round-robin turns taken. */
import type { DocumentStore } from '@crm/store';
import type { RuleDefinition, RuleDocument, TriggerKind } from '../domain/model';
import type { Page, Paging } from '../domain/paging';
import { rules } from './collections';
import { workspacePage } from './paging';

export class RuleRepository {
  constructor(private readonly store: DocumentStore) {}

  /** Newest first. */
  page(workspaceId: string, paging: Paging): Promise<Page<RuleDocument>> {
    return workspacePage(this.store, workspaceId, rules, { sort: { field: 'createdAt', direction: 'desc' } }, paging);
  }

  get(workspaceId: string, id: string): Promise<RuleDocument | null> {
    return this.store.forWorkspace(workspaceId).get(rules, id);
  }

  insert(rule: RuleDocument): Promise<RuleDocument> {
    return this.store.forWorkspace(rule.workspaceId).insert(rules, rule);
  }

  /** Writes the definition only while the rule is as it was read (its `updatedAt`); null otherwise, or when it is gone. */
  changeDefinition(
    workspaceId: string,
    id: string,
    definition: RuleDefinition,
    updatedAt: string,
    readUpdatedAt: string,
  ): Promise<RuleDocument | null> {
    return this.store
      .forWorkspace(workspaceId)
      .update(rules, id, { set: { ...definition, updatedAt } }, { where: [{ field: 'updatedAt', op: 'eq', value: readUpdatedAt }] });
  }

  /** False when there was no such rule. */
  delete(workspaceId: string, id: string): Promise<boolean> {
    return this.store.forWorkspace(workspaceId).delete(rules, id);
  }

  setActive(workspaceId: string, id: string, isActive: boolean, updatedAt: string): Promise<RuleDocument | null> {
    return this.store.forWorkspace(workspaceId).update(rules, id, { set: { isActive, updatedAt } });
  }

  countActive(workspaceId: string): Promise<number> {
    return this.store.forWorkspace(workspaceId).count(rules, [{ field: 'isActive', op: 'eq', value: true }]);
  }

  /** The workspace's active rules that any of `triggers` starts. */
  activeRulesFor(workspaceId: string, triggers: TriggerKind[]): Promise<RuleDocument[]> {
    return this.store.forWorkspace(workspaceId).find(rules, {
      where: [
        { field: 'trigger', op: 'in', values: triggers },
        { field: 'isActive', op: 'eq', value: true },
      ],
    });
  }

  /**
   * Moves the round-robin position of the rule's step `order` by one, atomically (concurrent
   * enrollments each get their own turn); the rule as it is after, or null when it is gone.
   */
  takeRoundRobinTurn(workspaceId: string, ruleId: string, order: number): Promise<RuleDocument | null> {
    return this.store.forWorkspace(workspaceId).update(rules, ruleId, { inc: { [`roundRobin.s${order}`]: 1 } });
  }
}
