/** Where an upstream call goes: its origin, socket address, `host` header and path. */
export interface UpstreamTarget {
  origin: string;
  hostname: string;
  port: number;
  tls: boolean;
  /** The URL's host, with its port when that is not the scheme's default. */
  host: string;
  path: string;
}

/**
 * Reads an upstream URL. The URLs come from the configuration (a provider's base URL plus the
 * model's path), so a few distinct strings repeat on every call: each is parsed once.
 */
const targets = new Map<string, UpstreamTarget>();
const TARGETS_LIMIT = 256;

export function readTarget(url: string): UpstreamTarget {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    const tls = parsed.protocol === 'https:';
    if (!tls && parsed.protocol !== 'http:') throw new TypeError(`Unsupported upstream URL scheme: ${parsed.protocol}`);
    // URL keeps an IPv6 address in brackets; a socket wants it without.
    const hostname = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
    target = { origin: parsed.origin, hostname, port: Number(parsed.port || (tls ? 443 : 80)), tls, host: parsed.host, path: parsed.pathname + parsed.search };
    if (targets.size >= TARGETS_LIMIT) targets.clear();
    targets.set(url, target);
  }
  return target;
}
