import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LocalCluster } from './cluster';

const run = promisify(execFile);
const CLI = join(__dirname, '../../services/auth/dist/cli.js');

/** Runs the operator CLI against the cluster's auth service, as an operator would. */
export async function operatorCli(cluster: LocalCluster, args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: {
        ...process.env,
        AUTH_GRPC_ADDR: cluster.authAddress,
        CRM_OPERATOR_TOKEN: cluster.operatorToken,
        CRM_OPERATOR_TLS_DIR: cluster.internalTlsDirs.operator,
      },
      timeout: 20_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code: typeof failed.code === 'number' ? failed.code : 1 };
  }
}

/** Moves a workspace to the enterprise plan with `limit` requests a minute, so a suite's many calls are not throttled. */
export async function liftRateLimit(cluster: LocalCluster, workspaceId: string, limit = 100_000): Promise<void> {
  const changed = await operatorCli(cluster, [
    'change-plan',
    '--workspace',
    workspaceId,
    '--plan',
    'enterprise',
    '--rate-limit',
    String(limit),
  ]);
  if (changed.code !== 0) throw new Error(`change-plan failed: ${changed.stderr}`);
}
