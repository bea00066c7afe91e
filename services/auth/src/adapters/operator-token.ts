import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const OPERATOR_TOKEN_FILE = 'operator-token';

export function operatorTokenPath(dataDir: string): string {
  return join(dataDir, OPERATOR_TOKEN_FILE);
}

/**
 * The configured operator token, or the one kept in `<dataDir>/operator-token`, created (mode 0600)
 * on the first start. The exclusive create means two processes starting together keep one token.
 */
export async function ensureOperatorToken(configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured;
  const file = operatorTokenPath(dataDir);
  await mkdir(dataDir, { recursive: true });
  try {
    const token = randomBytes(32).toString('base64url');
    await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stored = (await readFile(file, 'utf8')).trim();
  if (!stored) throw new Error(`${file} is empty; delete it to have a new operator token made.`);
  return stored;
}
