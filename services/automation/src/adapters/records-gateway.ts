/**
 * What the engine needs of the records service, as a port (tests pass a fake), and its gRPC
 * implementation. Every call acts as the `system` actor of the record's workspace and carries the
 * enrollment's correlation id, which records stamps on the events it publishes (see loop-guard.ts).
 */
import { fieldMask, GrpcClient, recordsV1, type InternalTls } from '@crm/grpc';
import { isDomainError } from '@crm/observability';
import type { RecordType } from '../domain/model';

export interface TaskSummary {
  id: string;
  name: string;
  dueDate: string | null;
  createdAt: string;
}

export interface RecordsGateway {
  /** The record as the public API shows it, or null when it no longer exists. */
  getRecord(workspaceId: string, recordType: RecordType, id: string, correlationId: string): Promise<Record<string, unknown> | null>;
  createTask(
    workspaceId: string,
    task: { name: string; dueDate: string; assignedTo: string | null; relatedTo: string },
    correlationId: string,
  ): Promise<TaskSummary>;
  listTasks(workspaceId: string, relatedTo: string, correlationId: string): Promise<TaskSummary[]>;
  /** Sets the record's owner (assignedTo). */
  assignOwner(workspaceId: string, recordType: RecordType, id: string, userId: string, correlationId: string): Promise<void>;
  close(): void;
}

const TIMEOUT_MS = 10_000;

export class GrpcRecordsGateway implements RecordsGateway {
  private readonly client: GrpcClient<recordsV1.RecordsServiceMethods>;

  constructor(address: string, tls: InternalTls | null) {
    this.client = new GrpcClient<recordsV1.RecordsServiceMethods>(recordsV1.protoPath, recordsV1.RecordsServiceName, address, tls);
  }

  /** An enrollment's writes carry its correlation id as their cause too, which is what the loop guard reads. */
  private context(workspaceId: string, correlationId: string) {
    return { workspaceId, actorId: 'automation', actorKind: 'system' as const, requestId: correlationId, cause: correlationId };
  }

  async getRecord(workspaceId: string, recordType: RecordType, id: string, correlationId: string): Promise<Record<string, unknown> | null> {
    try {
      const response = await this.client.call('GetRecord', { recordType, id }, this.context(workspaceId, correlationId), {
        timeoutMs: TIMEOUT_MS,
      });
      return JSON.parse(response.fieldsJson) as Record<string, unknown>;
    } catch (error) {
      if (isDomainError(error) && error.kind === 'not_found') return null;
      throw error;
    }
  }

  async createTask(
    workspaceId: string,
    task: { name: string; dueDate: string; assignedTo: string | null; relatedTo: string },
    correlationId: string,
  ): Promise<TaskSummary> {
    const response = await this.client.call(
      'CreateTask',
      { name: task.name, dueDate: task.dueDate, assignedTo: task.assignedTo ?? '', relatedTo: task.relatedTo },
      this.context(workspaceId, correlationId),
      { timeoutMs: TIMEOUT_MS },
    );
    return taskSummary(response.task!);
  }

  async listTasks(workspaceId: string, relatedTo: string, correlationId: string): Promise<TaskSummary[]> {
    const response = await this.client.call('ListTasks', { relatedTo, limit: 100 }, this.context(workspaceId, correlationId), {
      timeoutMs: TIMEOUT_MS,
    });
    return response.tasks.map(taskSummary);
  }

  async assignOwner(workspaceId: string, recordType: RecordType, id: string, userId: string, correlationId: string): Promise<void> {
    const context = this.context(workspaceId, correlationId);
    const options = { timeoutMs: TIMEOUT_MS };
    const update = { id, updateMask: fieldMask(['assignedTo']) };
    switch (recordType) {
      case 'lead':
        await this.client.call('UpdateLead', { ...update, lead: { assignedTo: userId } as recordsV1.Lead }, context, options);
        return;
      case 'contact':
        await this.client.call('UpdateContact', { ...update, contact: { assignedTo: userId } as recordsV1.Contact }, context, options);
        return;
      case 'opportunity':
        await this.client.call(
          'UpdateOpportunity',
          { ...update, opportunity: { assignedTo: userId } as recordsV1.Opportunity },
          context,
          options,
        );
        return;
    }
  }

  close(): void {
    this.client.close();
  }
}

function taskSummary(task: recordsV1.Task): TaskSummary {
  return { id: task.id, name: task.name, dueDate: task.dueDate ?? null, createdAt: task.createdAt };
}
