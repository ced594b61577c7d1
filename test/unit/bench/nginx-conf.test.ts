import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../bench/lib/args.ts';
import { renderNginxConf } from '../../../bench/lib/nginx.ts';

describe("the benchmark's nginx configuration", () => {
  const template = readFileSync(new URL('../../../bench/nginx.conf', import.meta.url), 'utf8');

  it('serves the same answers on a plain and a TLS port, the TLS one with the copied test certificate', () => {
    const conf = renderNginxConf(template, { port: 18080, tlsPort: 18443, dir: '/tmp/rig', dripPort: 18090 });
    expect(conf).not.toMatch(/\{\{/);
    expect(conf).toContain('listen 127.0.0.1:18080 backlog=4096;');
    expect(conf).toContain('listen 127.0.0.1:18443 ssl backlog=4096;');
    expect(conf).toContain('ssl_certificate /tmp/rig/tls/leaf-cert.pem;');
    expect(conf).toContain('ssl_certificate_key /tmp/rig/tls/leaf-key.pem;');
    // One server block: every location answers on both ports.
    expect(conf.match(/^\s*server \{/gm)).toHaveLength(1);
  });

  it('refuses a slot it has no value for', () => {
    expect(() => renderNginxConf('listen {{NOPE}};', { port: 1, tlsPort: 2, dir: '/d', dripPort: 3 })).toThrow('unknown slot {{NOPE}}');
  });
});

describe('npm run bench -- --tls', () => {
  it('is off by default, and refuses the peer gateway (measured over plain HTTP)', () => {
    expect(parseArgs([]).tls).toBe(false);
    expect(parseArgs(['--tls', '--runtime', 'bun']).tls).toBe(true);
    expect(() => parseArgs(['--tls', '--peer', 'portkey'])).toThrow('not with --tls');
  });
});
