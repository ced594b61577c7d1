import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDrip } from './drip.ts';
import { gatewayConfig } from './gateway-config.ts';
import { startNginx } from './nginx.ts';
import type { Launched } from './procs.ts';
import { installCleanup, onExit, pinSelf } from './procs.ts';

/**
 * What the side-by-side tools (`bench:ab`, `bench:warm`) stand on: this process pinned to the
 * load core, a temporary directory removed on exit, the dripping upstream, nginx in front of it,
 * and a gateway configuration (memory usage store) pointing at nginx.
 */
export async function startRig(name: string, nginx: string, loadCpu: number): Promise<{ dir: string; upstream: { server: Launched; port: number }; configPath: string }> {
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
  writeFileSync(configPath, JSON.stringify(gatewayConfig(upstream.port, 'memory')));
  return { dir, upstream, configPath };
}
