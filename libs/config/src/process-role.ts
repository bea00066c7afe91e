/**
 * Which part of a service a process runs (`--role=<role>`): the import and automation images run
 * their server by default and their workers with `--role=worker` (the chart's worker args).
 */
export class RoleError extends Error {
  override readonly name = 'RoleError';
}

/** The role `argv` names, or the first of `roles` when it names none; RoleError for another. */
export function roleOf<R extends string>(argv: readonly string[], roles: readonly [R, ...R[]]): R {
  const flag = argv.find((arg) => arg.startsWith('--role='));
  const role = flag ? flag.slice('--role='.length) : roles[0];
  if (!(roles as readonly string[]).includes(role)) {
    throw new RoleError(`Unknown role ${JSON.stringify(role)}: use ${roles.map((r) => `--role=${r}`).join(' or ')}.`);
  }
  return role as R;
}

/** roleOf for a process's main: a wrong role is a usage error (exit 64, EX_USAGE). */
export function roleOrExit<R extends string>(roles: readonly [R, ...R[]], argv: readonly string[] = process.argv): R {
  try {
    return roleOf(argv, roles);
  } catch (error) {
    if (!(error instanceof RoleError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(64);
  }
}
