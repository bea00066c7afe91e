import { createHash, timingSafeEqual } from 'node:crypto';
import { OPERATOR_TOKEN_HEADER, type authV1, type CallContext } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import type { AuthServices } from '../application/auth-services';
import { operatorCaller } from '../domain/caller';
import { optionalNumber, toApiKey, toUser, toWorkspace, type HandlersOf } from './proto-mapping';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Compares digests, so neither the content nor the length of the token leaks through timing. */
function requireOperator(context: CallContext, expectedDigest: Buffer): void {
  const [presented] = context.metadata.get(OPERATOR_TOKEN_HEADER);
  if (typeof presented !== 'string' || !timingSafeEqual(digest(presented), expectedDigest)) {
    throw new DomainError('permission_denied', 'A valid operator token is required.');
  }
}

/** auth.v1.AuthOperatorService, for the `crm` CLI: every call needs the operator token. */
export function operatorHandlers(
  { workspaces, apiKeys, signingKeys }: AuthServices,
  operatorToken: string,
): HandlersOf<authV1.AuthOperatorServiceMethods> {
  const expected = digest(operatorToken);
  return {
    CreateWorkspace: async (request, context) => {
      requireOperator(context, expected);
      const { workspace, admin } = await workspaces.createWorkspace({
        workspaceName: request.name,
        email: request.adminEmail,
        password: request.adminPassword,
        firstName: request.adminFirstName,
        lastName: request.adminLastName,
        plan: request.plan || undefined,
        rateLimitPerMinute: optionalNumber(request.rateLimitPerMinute),
      });
      return { workspace: toWorkspace(workspace), admin: toUser(admin) };
    },
    ChangePlan: async (request, context) => {
      requireOperator(context, expected);
      return toWorkspace(await workspaces.changePlan(request.workspaceId, request.plan, optionalNumber(request.rateLimitPerMinute)));
    },
    CreateWorkspaceApiKey: async (request, context) => {
      requireOperator(context, expected);
      if (!request.workspaceId) throw DomainError.validation({ workspaceId: ['This field is required.'] });
      const { apiKey, key } = await apiKeys.create(operatorCaller(request.workspaceId), request.name, {
        scopes: request.scopes,
        expiresAt: request.expiresAt || undefined,
      });
      return { apiKey: toApiKey(apiKey), key };
    },
    ListWorkspaces: async (_request, context) => {
      requireOperator(context, expected);
      return { workspaces: (await workspaces.list()).map((workspace) => toWorkspace(workspace)) };
    },
    RotateSigningKey: async (_request, context) => {
      requireOperator(context, expected);
      const rotated = await signingKeys.rotate();
      return { currentKid: rotated.current, previousKid: rotated.previous };
    },
  };
}
