import tls from 'node:tls';

/**
 * The certificates the runtime's own clients trust: its roots with NODE_EXTRA_CA_CERTS's, as
 * node:tls's `getCACertificates('default')` lists them on Bun and Deno (not in @types/node 20).
 * Given as `ca` to the adapters' sockets, which on those runtimes leave NODE_EXTRA_CA_CERTS out.
 * Undefined where the runtime cannot list them.
 */
export function readDefaultCa(): string[] | undefined {
  const { getCACertificates } = tls as unknown as { getCACertificates?: (kind: 'default') => string[] };
  return typeof getCACertificates === 'function' ? getCACertificates('default') : undefined;
}
