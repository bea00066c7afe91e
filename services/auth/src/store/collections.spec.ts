import { users } from './collections';

describe('users collection', () => {
  it('keeps one user per email in a workspace (pending invitations included) with a unique index on a declared string field', () => {
    expect(users.scope).toBe('workspace');
    expect(users.indexes).toContainEqual({ fields: ['email'], unique: true, sparse: true });
    expect(users.fields?.email).toBe('string');
  });
});
