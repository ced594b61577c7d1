import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDrip } from './drip.ts';
import { gatewayConfig } from './gateway-config.ts';
import { startNginx } from './nginx.ts';
import type { Launched } from './procs.ts';
import { installCleanup, onExit, pinSelf, which } from './procs.ts';
import { SCENARIOS, type Scenario } from './scenarios.ts';

/**
 * What the side-by-side tools (`bench:ab`, `bench:warm`) stand on: this process pinned to the
 * load core, a temporary directory removed on exit, the dripping upstream, nginx in front of it,
 * and a gateway configuration (memory usage store) pointing at nginx, at its TLS port with `tls`
 * (the servers then need NODE_EXTRA_CA_CERTS=BENCH_CA).
 */
export async function startRig(name: string, nginx: string, loadCpu: number, tls = false): Promise<{ dir: string; upstream: { server: Launched; port: number }; configPath: string }> {
  installCleanup();
  pinSelf(loadCpu);
  const dir = mkdtempSync(join(tmpdir(), `switchyard-${name}-`));
  // Traversable (not listable) for nginx's worker, which runs as nobody when started as root.
  chmodSync(dir, 0o711);
  const drip = await startDrip(20);
  onExit(() => {
    drip.server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const upstream = await startNginx(nginx, join(dir, 'nginx'), loadCpu, drip.port);
  const configPath = join(dir, 'switchyard.json');
  writeFileSync(configPath, JSON.stringify(gatewayConfig(tls ? upstream.tlsPort : upstream.port, 'memory', tls ? 'https' : 'http')));
  return { dir, upstream, configPath };
}

/** nginx and wrk for a side-by-side tool, or an error naming the tool and the install line. */
export function findLoadTools(tool: string): { nginx: string; wrk: string } {
  const nginx = which('nginx', ['/usr/sbin/nginx']);
  const wrk = which('wrk', ['/usr/bin/wrk']);
  if (!nginx || !wrk) throw new Error(`${tool} needs nginx and wrk (Debian: apt-get install -y nginx wrk)`);
  return { nginx, wrk };
}

/** The scenario of `--scenario NAME`, or an error listing the names. */
export function findScenario(name: string | undefined): Scenario {
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (!scenario) throw new Error(`--scenario: one of ${SCENARIOS.map((s) => s.name).join(', ')}`);
  return scenario;
}
