import tls from 'node:tls';

/**
 * The certificates the runtime's own clients trust: its roots with NODE_EXTRA_CA_CERTS's, as
 * node:tls's `getCACertificates('default')` lists them (on Deno; not in @types/node 20). Given as
 * `ca` to the Deno adapter's sockets, since Deno's node:tls leaves NODE_EXTRA_CA_CERTS out when it
 * connects. Undefined where the runtime cannot list them.
 */
export function readDenoDefaultCa(): string[] | undefined {
  const { getCACertificates } = tls as unknown as { getCACertificates?: (kind: 'default') => string[] };
  return typeof getCACertificates === 'function' ? getCACertificates('default') : undefined;
}
