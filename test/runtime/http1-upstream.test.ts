import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FETCH_CAP_WARNING, selectBunUpstream } from '../../adapters/bun-serve.ts';
import { selectDenoUpstream } from '../../adapters/deno-upstream.ts';
import { selectNodeUpstream } from '../../adapters/node-upstream.ts';
import { ROOT, runtimeBin } from './spawn-gateway.ts';

const run = promisify(execFile);
const bun = runtimeBin('bun');
const deno = runtimeBin('deno');
const PROBE = 'test/runtime/fixtures/http1-upstream-probe.ts';

/**
 * The adapters' own upstream client (adapters/http1-client.ts) runs on each runtime's sockets:
 * `Bun.connect` for the Bun adapter, `node:net`/`node:tls` for the Node adapter and, through
 * Deno's node:net, for the Deno adapter. Its duties are
 * checked on both, by one probe that drives it against servers scripting every byte
 * (test/runtime/fixtures/http1-upstream-probe.ts). The runtime suites (bun.test.ts, node.test.ts)
 * and the Claude Code agent run the whole gateway over it as well, and every unit and contract
 * test that starts a gateway calls upstream through the Node one.
 */
const runtimes = [
  { name: 'Bun (createBunFetch)', command: bun, args: ['run', PROBE] },
  { name: 'Node (createNodeSocketFetch)', command: process.execPath, args: ['--import', 'tsx', PROBE] },
  { name: 'Deno (createNodeSocketFetch on its node:net)', command: deno, args: ['run', '-A', PROBE] },
];

describe.each(runtimes)('the HTTP/1.1 upstream client on $name', ({ command, args }) => {
  it.skipIf(!command)('speaks HTTP/1.1 to upstreams: framing, keep-alive, streaming, cancellation, time-outs, limits and TLS', async () => {
    const { stdout } = await run(command!, args, { cwd: ROOT, timeout: 60_000, maxBuffer: 1 << 20 });
    const r = JSON.parse(stdout);

    // The request as written: path and query, host with its port, the headers given, the length
    // the client counted itself, and the body as UTF-8 (string) or as given (bytes).
    const request: string = r.wire.request;
    expect(request).toMatch(/^POST \/v1\/messages\?beta=true HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\naccept-encoding: identity\r\n/);
    expect(request).toContain('\r\ncontent-type: application/json\r\nx-api-key: sk-1\r\nanthropic-version: 2023-06-01\r\n');
    expect(request.endsWith(`content-length: ${Buffer.byteLength('{"text":"héllo ✓"}')}\r\n\r\n{"text":"héllo ✓"}`)).toBe(true);
    expect(r.wire).toMatchObject({ status: 200, type: 'application/json', body: '{"ok":true}' });
    expect(r.wireBytes.endsWith('content-length: 14\r\n\r\n{"bytes":true}')).toBe(true);
    // A CR or LF in a header value never reaches the wire.
    expect(r.injection).toEqual({ name: 'TypeError', message: 'Invalid upstream header: x-evil' });
    // Nor does a character with no byte of its own (fetch's Headers refuses it too).
    expect(r.wide).toEqual({ name: 'TypeError', message: 'Invalid upstream header: x-name' });
    expect(r.wireConnections).toBe(1);

    // Four calls, JSON and chunked in turn, on one connection.
    expect(r.reuse).toEqual({ bodies: ['{"n":0}', 'abc', '{"n":2}', 'abc'], connections: 1 });

    // The first event is read as soon as it arrives; the second 200 ms later.
    expect(r.stream.first).toBe('event: a\n\n');
    expect(r.stream.firstMs).toBeLessThan(100);
    expect(r.stream.rest).toBe('event: b\n\n');
    expect(r.stream.totalMs).toBeGreaterThanOrEqual(190);

    // The client leaving ends the call with an AbortError and closes the upstream connection; a
    // call whose client has already left never connects.
    expect(r.abort).toEqual({ failed: { name: 'AbortError', message: expect.any(String) }, closed: 1, alreadyFailed: { name: 'AbortError', message: expect.any(String) }, connectionsForAborted: 0 });

    // Aborted within the turn that made it: its request never left (requests wait for the turn's end).
    expect(r.abortedInTurn).toEqual({ first: '{"n":0}', failed: 'AbortError', seen: 1, next: '{"n":1}' });

    // No headers within headersTimeoutMs: a TimeoutError (what core maps to a 504), connection closed.
    expect(r.timeout.failed).toEqual({ name: 'TimeoutError', message: 'Upstream headers timed out after 150 ms' });
    expect(r.timeout.ms).toBeGreaterThanOrEqual(145);
    expect(r.timeout.ms).toBeLessThan(1000);
    expect(r.timeout.closed).toBe(1);

    // Core cancelling the body closes the upstream connection; reads after it are done.
    expect(r.cancel).toEqual({ first: 'abc', afterDone: true, closed: 1 });

    // An answer cut short fails its body's read; a head that could be read two ways fails the call.
    expect(r.cut.status).toBe(200);
    expect(r.cut.failed.message).toBe('Upstream connection closed: Connection closed before the answer ended');
    expect(r.garbled.message).toBe('Upstream answer could not be read: Malformed response head');
    expect(r.refused.message).toMatch(/^Could not connect to http:\/\/127\.0\.0\.1:\d+$/);

    // An upstream that closed an idle connection, and one whose keep-alive hint leaves no time,
    // each cost a new connection; no call fails for it.
    expect(r.idleClosed).toEqual({ bodies: ['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}'], connections: 3 });
    expect(r.stray).toEqual({ bodies: ['{"n":0}', '{"n":1}'], connections: 2 });

    // A reused connection closed before any byte of answer, at once: the request went again on a
    // new connection (the upstream saw it twice) and the call succeeded. Not so on a new
    // connection, nor after a second of silence.
    expect(r.resend).toEqual({ bodies: ['{"n":1}', '{"n":3}'], connections: 2, seen: 3 });
    expect(r.noResend.fresh).toBe('Upstream connection closed: Connection closed before an answer');
    expect(r.noResend.slow).toBe('Upstream connection closed: Connection closed before an answer');
    expect(r.noResend.seen).toBe(6);
    // The same after a reset (RST): the reused connection's request went again, the new one's failed.
    expect(r.resendAfterReset).toEqual({ bodies: ['{"n":1}', '{"n":3}'], fresh: ['Upstream connection closed: Connection closed before an answer', expect.stringMatching(/ECONNRESET/)], seen: 4 });

    // 8 MiB up (more than one socket write), 4 MiB down to a reader that pauses, and a 400 K-character
    // string up (UTF-8, counted in bytes): every byte, in order.
    expect(r.large.digest).toBe(r.large.sent);
    expect(r.large.received).toBe(4 * 1024 * 1024);
    expect(r.large.receivedDigest).toBe(r.large.expectedDigest);
    expect(r.large.textDigest).toBe(r.large.textSent);

    // Unread, a 32 MiB answer stays mostly with the upstream (the kernel's buffers hold a few MiB),
    // and arrives whole once read.
    expect(r.backpressure.leftWhileUnread).toBeGreaterThan(r.backpressure.size / 2);
    expect(r.backpressure.received).toBe(r.backpressure.size);

    // Six calls through a pool of two: two sockets, six answers.
    expect(r.limit).toEqual({ count: 6, distinct: 6, maxOpen: 2 });

    // A self-signed certificate is refused before the request is written; trusted, it works, with
    // the URL's host (and port) as the host header.
    expect(r.tls.refused.message).toMatch(/^Could not connect to https:\/\/localhost:\d+$/);
    expect(r.tls.refused.cause).toMatch(/self.signed/i);
    expect(r.tls.handledBefore).toBe(0);
    expect(r.tls.status).toBe(200);
    expect(r.tls.body).toEqual({ host: expect.stringMatching(/^localhost:\d+$/), body: '{"secure":true}' });
    expect(r.tls.again).toBe(200);
    // A new connection after the first was dropped.
    expect(r.tls.third).toBe(200);
    // Connections after the first offer the last session with a ticket, and the server resumes
    // it (the handshake skips the certificate exchange), on Bun and Node; Deno's node:tls resumes none.
    for (const version of ['TLSv1.3', 'TLSv1.2']) {
      expect(r.tlsResume[version].bodies).toEqual(['{"ok":true}', '{"ok":true}', '{"ok":true}']);
      if (r.runtime !== 'deno') expect({ version, resumed: r.tlsResume[version].resumed }).toEqual({ version, resumed: [false, true, true] });
    }
    // Three large answers over TLS at once, read slowly: every byte as sent.
    expect(r.tlsLarge).toEqual([true, true, true]);
  });
});

const EXTRA_CA_PROBE = 'test/runtime/fixtures/extra-ca-probe.ts';
const CA = `${ROOT}/test/fixtures/tls/ca-cert.pem`;

describe.each(runtimes)('the upstream client the adapter selects on $name, and the certificates it trusts', ({ name, command, args }) => {
  const probe = async (env: Record<string, string>) => {
    // Inherited settings (this machine sets NODE_EXTRA_CA_CERTS) are cleared unless given.
    const clean = { ...process.env, NODE_EXTRA_CA_CERTS: '', SSL_CERT_FILE: '', SSL_CERT_DIR: '', DENO_CERT: '', DENO_TLS_CA_STORE: '', ...env };
    const { stdout } = await run(command!, [...args.slice(0, -1), EXTRA_CA_PROBE], { cwd: ROOT, timeout: 60_000, env: clean });
    return JSON.parse(stdout);
  };

  it.skipIf(!command)("trusts NODE_EXTRA_CA_CERTS's authorities on its sockets (and on Bun SSL_CERT_FILE's), as the runtime's own clients do", async () => {
    // A certificate signed by the test's own authority: refused, then trusted once it is added.
    expect(await probe({})).toEqual({ client: 'sockets', error: expect.stringMatching(/^Could not connect to https:\/\/localhost:\d+$/), cause: expect.stringMatching(/verify the first certificate/) });
    expect(await probe({ NODE_EXTRA_CA_CERTS: CA })).toEqual({ client: 'sockets', status: 200, body: '{"ok":true}' });
    // Bun's sockets, given no ca, verify against the store its fetch uses, which SSL_CERT_FILE adds to.
    if (name.startsWith('Bun')) {
      expect(await probe({ SSL_CERT_FILE: CA })).toEqual({ client: 'sockets', status: 200, body: '{"ok":true}' });
      // With NODE_EXTRA_CA_CERTS naming another certificate too: a list of roots and extra
      // certificates given as `ca` (as until the thirtieth round) would leave SSL_CERT_FILE's out.
      expect(await probe({ SSL_CERT_FILE: CA, NODE_EXTRA_CA_CERTS: `${ROOT}/test/fixtures/tls/localhost-cert.pem` })).toEqual({ client: 'sockets', status: 200, body: '{"ok":true}' });
    }
    // Deno's node:tls follows neither DENO_CERT nor an HTTP proxy: its fetch is kept for them.
    if (name.startsWith('Deno')) expect(await probe({ DENO_CERT: CA })).toEqual({ client: 'fetch', status: 200, body: '{"ok":true}' });
  });
});

describe('selectDenoUpstream', () => {
  const defaultCa = () => ['-----BEGIN CERTIFICATE-----'];

  it("uses the sockets, given what Deno lists as trusted when NODE_EXTRA_CA_CERTS adds certificates", () => {
    expect(selectDenoUpstream({}, defaultCa).name).toBe('sockets');
    let read = 0;
    expect(selectDenoUpstream({ NODE_EXTRA_CA_CERTS: '/etc/ssl/extra.pem' }, () => (read++, defaultCa())).name).toBe('sockets');
    expect(read).toBe(1);
    expect(selectDenoUpstream({}, () => (read++, defaultCa())).name).toBe('sockets');
    expect(read).toBe(1);
  });

  it("keeps Deno's fetch for an HTTP proxy, DENO_CERT or DENO_TLS_CA_STORE, when asked, or when it cannot tell what fetch trusts", () => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) expect(selectDenoUpstream({ [name]: 'http://proxy:3128' }, defaultCa).name).toBe('fetch');
    expect(selectDenoUpstream({ DENO_CERT: '/etc/ssl/corp.pem' }, defaultCa).name).toBe('fetch');
    expect(selectDenoUpstream({ DENO_TLS_CA_STORE: 'system' }, defaultCa).name).toBe('fetch');
    expect(selectDenoUpstream({ SWITCHYARD_UPSTREAM_CLIENT: 'fetch' }, defaultCa).name).toBe('fetch');
    expect(selectDenoUpstream({ NODE_EXTRA_CA_CERTS: '/etc/ssl/extra.pem' }, () => undefined).name).toBe('fetch');
    expect(selectDenoUpstream({ NODE_EXTRA_CA_CERTS: '/etc/ssl/extra.pem' }, () => []).name).toBe('fetch');
    expect(selectDenoUpstream({ HTTPS_PROXY: '' }, defaultCa).name).toBe('sockets');
  });
});

describe('selectNodeUpstream', () => {
  it("uses the sockets, or undici's pool when SWITCHYARD_UPSTREAM_CLIENT=undici asks for it", () => {
    expect(selectNodeUpstream({}).name).toBe('sockets');
    expect(selectNodeUpstream({ SWITCHYARD_UPSTREAM_CLIENT: 'fetch' }).name).toBe('sockets');
    expect(selectNodeUpstream({ SWITCHYARD_UPSTREAM_CLIENT: 'undici' }).name).toBe('undici');
  });
});

describe('selectBunUpstream', () => {
  it('uses the sockets, on the store Bun verifies against when given no ca (NODE_EXTRA_CA_CERTS included)', () => {
    expect(selectBunUpstream({}).name).toBe('sockets');
    expect(selectBunUpstream({ NODE_EXTRA_CA_CERTS: '/etc/ssl/extra.pem' }).name).toBe('sockets');
  });

  it("falls back to Bun's fetch for an HTTP proxy, or when asked", () => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) expect(selectBunUpstream({ [name]: 'http://proxy:3128' }).name).toBe('fetch');
    expect(selectBunUpstream({ SWITCHYARD_UPSTREAM_CLIENT: 'fetch' }).name).toBe('fetch');
  });

  it("says, with Bun's fetch, how to lift its 256 requests at once (the sockets have no such cap)", () => {
    expect(selectBunUpstream({ SWITCHYARD_UPSTREAM_CLIENT: 'fetch' }).warning).toBe(FETCH_CAP_WARNING);
    expect(FETCH_CAP_WARNING).toContain('BUN_CONFIG_MAX_HTTP_REQUESTS=65535');
    expect(selectBunUpstream({ SWITCHYARD_UPSTREAM_CLIENT: 'fetch', BUN_CONFIG_MAX_HTTP_REQUESTS: '65535' }).warning).toBeUndefined();
    expect(selectBunUpstream({}).warning).toBeUndefined();
  });
});
