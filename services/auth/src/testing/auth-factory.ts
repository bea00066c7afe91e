// Builds the auth domain over a real in-memory SQLite store, for specs. Not part of the build.
import { generateKeyPairSync } from 'node:crypto';
import { openStore, type DocumentStore } from '@crm/store';
import { PasswordHasher } from '../domain/passwords';
import { SigningKeyRing } from '../domain/signing-keys';
import { createAuthServices, type AuthServices } from '../application/auth-services';
import type { Caller } from '../domain/caller';
import type { User } from '../domain/model';
import type { AuthRepositories } from '../domain/repositories';
import { authCollections, userLogins, users } from '../store/collections';
import { createRepositories } from '../store/repositories';
import { newId } from '../domain/ids';

/** Cheap argon2 settings: the specs check behaviour, not hashing cost. */
export const TEST_PASSWORD_HASHING = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

let testKeyPem: string | undefined;
/** One RSA key per test file: generating one costs tens of milliseconds. */
export function testPrivateKeyPem(): string {
  testKeyPem ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return testKeyPem;
}

export interface TestClock {
  now: () => Date;
  advance(ms: number): void;
}

export function testClock(start = new Date('2025-03-01T12:00:00.000Z')): TestClock {
  let current = start.getTime();
  return { now: () => new Date(current), advance: (ms) => void (current += ms) };
}

export interface AuthFixture extends AuthServices {
  store: DocumentStore;
  repositories: AuthRepositories;
  clock: TestClock;
  close(): Promise<void>;
  /** Signs up a workspace whose admin has this email; returns the session. */
  signUp(email?: string): ReturnType<AuthServices['sessions']['signUp']>;
  /** An active member (non-admin) user with PASSWORD, written straight to the store (skipping the invitation). */
  addMember(workspaceId: string): Promise<User>;
}

export const PASSWORD = 'correct horse battery';

export async function buildAuth(): Promise<AuthFixture> {
  const store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: authCollections });
  const repositories = createRepositories(store);
  const clock = testClock();
  const services = createAuthServices({
    repositories,
    signingKeys: await SigningKeyRing.open(repositories.signingKeys, testPrivateKeyPem(), clock.now),
    accessTokenTtlSeconds: 3600,
    refreshTokenTtlDays: 30,
    passwordHashing: TEST_PASSWORD_HASHING,
    now: clock.now,
  });
  return {
    ...services,
    store,
    repositories,
    clock,
    close: () => store.close(),
    signUp: (email = `admin-${newId('usr_').slice(4, 12).toLowerCase()}@example.com`) =>
      services.sessions.signUp({ workspaceName: 'Acme', email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' }),
    async addMember(workspaceId) {
      const member: User = {
        id: newId('usr_'),
        workspaceId,
        email: `member-${newId('usr_').slice(4, 12).toLowerCase()}@example.com`,
        firstName: 'Mem',
        lastName: 'Ber',
        role: 'member',
        passwordHash: await new PasswordHasher(TEST_PASSWORD_HASHING).hash(PASSWORD),
        createdAt: clock.now().toISOString(),
      };
      await store.forWorkspace(workspaceId).insert(users, member);
      await store.global().insert(userLogins, { id: member.email, userId: member.id, workspaceId });
      return member;
    },
  };
}

export function userCaller(user: Pick<User, 'id' | 'workspaceId'>): Caller {
  return { workspaceId: user.workspaceId, actorId: user.id, actorKind: 'user' };
}
