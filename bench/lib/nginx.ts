import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, launch, ROOT, waitPort, type Launched } from './procs.ts';

export function renderNginxConf(template: string, slots: { port: number; dir: string; dripPort: number }): string {
  const values: Record<string, string> = { PORT: String(slots.port), DIR: slots.dir, DRIP_PORT: String(slots.dripPort) };
  return template.replace(/\{\{([A-Z_]+)\}\}/g, (slot, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`bench/nginx.conf: unknown slot ${slot}`);
    return value;
  });
}

/** Starts nginx on `cpu` with the rendered template; resolves once it accepts connections. */
export async function startNginx(nginx: string, dir: string, cpu: number, dripPort: number): Promise<{ server: Launched; port: number }> {
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  mkdirSync(dir, { recursive: true });
  // A copy the worker (user nobody when started as root) can read wherever the repo lives.
  cpSync(join(ROOT, 'bench', 'upstream'), join(dir, 'answers'), { recursive: true });
  for (const path of [dir, join(dir, 'answers')]) chmodSync(path, 0o755);
  writeFileSync(conf, renderNginxConf(readFileSync(join(ROOT, 'bench', 'nginx.conf'), 'utf8'), { port, dir, dripPort }));
  const server = launch(cpu, nginx, ['-e', join(dir, 'nginx-error.log'), '-p', dir, '-c', conf], {});
  await waitPort(port, () => server.child.exitCode !== null, () => `nginx exited:\n${server.stderr()}${safeRead(join(dir, 'nginx-error.log'))}`);
  return { server, port };
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
