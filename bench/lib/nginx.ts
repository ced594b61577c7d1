import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, launch, ROOT, waitPort, type Launched } from './procs.ts';

export function renderNginxConf(template: string, slots: { port: number; tlsPort: number; dir: string; dripPort: number }): string {
  const values: Record<string, string> = { PORT: String(slots.port), TLS_PORT: String(slots.tlsPort), DIR: slots.dir, DRIP_PORT: String(slots.dripPort) };
  return template.replace(/\{\{([A-Z_]+)\}\}/g, (slot, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`bench/nginx.conf: unknown slot ${slot}`);
    return value;
  });
}

/** The authority that signed the certificate nginx serves on its TLS port: for NODE_EXTRA_CA_CERTS. */
export const BENCH_CA = join(ROOT, 'test', 'fixtures', 'tls', 'ca-cert.pem');

/**
 * Starts nginx on `cpu` with the rendered template; resolves once it accepts connections, on
 * `port` (http) and `tlsPort` (https, the same answers).
 */
export async function startNginx(nginx: string, dir: string, cpu: number, dripPort: number): Promise<{ server: Launched; port: number; tlsPort: number }> {
  const port = await freePort();
  const tlsPort = await freePort();
  const conf = join(dir, 'nginx.conf');
  mkdirSync(join(dir, 'tls'), { recursive: true });
  // Copies the worker (user nobody when started as root) can read wherever the repo lives.
  cpSync(join(ROOT, 'bench', 'upstream'), join(dir, 'answers'), { recursive: true });
  for (const file of ['leaf-cert.pem', 'leaf-key.pem']) cpSync(join(ROOT, 'test', 'fixtures', 'tls', file), join(dir, 'tls', file));
  for (const path of [dir, join(dir, 'answers'), join(dir, 'tls')]) chmodSync(path, 0o755);
  writeFileSync(conf, renderNginxConf(readFileSync(join(ROOT, 'bench', 'nginx.conf'), 'utf8'), { port, tlsPort, dir, dripPort }));
  const server = launch(cpu, nginx, ['-e', join(dir, 'nginx-error.log'), '-p', dir, '-c', conf], {});
  const failed = () => `nginx exited:\n${server.stderr()}${safeRead(join(dir, 'nginx-error.log'))}`;
  await waitPort(port, () => server.child.exitCode !== null, failed);
  await waitPort(tlsPort, () => server.child.exitCode !== null, failed);
  return { server, port, tlsPort };
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
