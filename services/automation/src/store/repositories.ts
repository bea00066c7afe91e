/** Every repository of the automation service, over one store (the composition root's). */
import type { DocumentStore } from '@crm/store';
import { EmailRepository } from './email-repository';
import { EngineWorkspaceRepository } from './engine-workspace-repository';
import { SweepLeases } from './leases';
import { NotificationRepository } from './notification-repository';
import { PersonDataRepository } from './person-data-repository';
import { RuleRepository } from './rule-repository';
import { RunRepository } from './run-repository';
import { TemplateRepository } from './template-repository';
import { WebhookDeliveryRepository } from './webhook-delivery-repository';
import { WebhookRepository } from './webhook-repository';

export interface AutomationRepositories {
  rules: RuleRepository;
  runs: RunRepository;
  templates: TemplateRepository;
  emails: EmailRepository;
  notifications: NotificationRepository;
  webhooks: WebhookRepository;
  deliveries: WebhookDeliveryRepository;
  engineWorkspaces: EngineWorkspaceRepository;
  leases: SweepLeases;
  personData: PersonDataRepository;
}

export function createRepositories(store: DocumentStore): AutomationRepositories {
  return {
    rules: new RuleRepository(store),
    runs: new RunRepository(store),
    templates: new TemplateRepository(store),
    emails: new EmailRepository(store),
    notifications: new NotificationRepository(store),
    webhooks: new WebhookRepository(store),
    deliveries: new WebhookDeliveryRepository(store),
    engineWorkspaces: new EngineWorkspaceRepository(store),
    leases: new SweepLeases(store),
    personData: new PersonDataRepository(store),
  };
}
