import { RoleError, roleOf } from './process-role';

describe('a process role', () => {
  const roles = ['server', 'worker'] as const;

  it('is the one --role names, and the first role when none is named', () => {
    expect(roleOf(['node', 'main.js', '--role=worker'], roles)).toBe('worker');
    expect(roleOf(['node', 'main.js', '--role=server'], roles)).toBe('server');
    expect(roleOf(['node', 'main.js'], roles)).toBe('server');
  });

  it('refuses a role the service does not have, naming the ones it has', () => {
    expect(() => roleOf(['node', 'main.js', '--role=relay'], roles)).toThrow(RoleError);
    expect(() => roleOf(['node', 'main.js', '--role='], roles)).toThrow('Unknown role "": use --role=server or --role=worker.');
  });
});
