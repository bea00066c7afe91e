import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { grpcPort, localGrpcAddress, TOPOLOGY } from './topology-defaults';

const ROOT = join(__dirname, '../../..');

describe('the deployment facts taken from charts/crm/topology.yaml', () => {
  it('are generated from the current topology (run npm run gen:topology after editing it)', () => {
    const output = execFileSync(process.execPath, [join(ROOT, 'scripts/gen-topology.js'), '--check'], { encoding: 'utf8' });
    expect(output).toContain('topology up to date');
  });

  it("give each service's port and each callee's local address", () => {
    expect(grpcPort('records')).toBe(TOPOLOGY.records.ports.grpc);
    expect(localGrpcAddress('auth')).toBe(`127.0.0.1:${TOPOLOGY.auth.ports.grpc}`);
  });

  it("are the ports each image's Dockerfile stage exposes (its listeners and the metrics port)", () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const exposed = new Map<string, number[]>();
    for (const [, stage, ports] of dockerfile.matchAll(/^FROM runtime AS (\S+)\nEXPOSE ([\d ]+)$/gm)) {
      exposed.set(stage!, ports!.split(' ').map(Number).sort());
    }
    const servers = [TOPOLOGY.gateway, TOPOLOGY.auth, TOPOLOGY.records, TOPOLOGY.import, TOPOLOGY.automation];
    for (const component of servers) {
      const { health: _health, ...listeners } = component.ports as Record<string, number>;
      const wanted = [...Object.values(listeners), 9464].sort();
      expect({ stage: component.name, exposed: exposed.get(component.name) }).toEqual({ stage: component.name, exposed: wanted });
    }
  });
});
