import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../agents/fake-llm.ts';
import { rigConfig } from '../agents/harness.ts';
import { startTestGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';

/**
 * The official SDKs in a real browser, on a page served from another origin than the gateway:
 * only a browser enforces CORS, so only this shows that a web app switching its base URL to
 * Switchyard keeps working (header-level cases are in test/unit/gateway/cors.test.ts). Debian's
 * Chromium, driven by playwright-core; `.ci/run` installs it and sets SWITCHYARD_REQUIRE_BROWSER.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
if (!present && process.env.SWITCHYARD_REQUIRE_BROWSER) throw new Error(`No Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

interface Site {
  /** The page's origin: `localhost`, where the gateway is `127.0.0.1`, on another port too. */
  url: string;
  close(): void;
}

/** The page's script, bundled for the browser; the page hands it the gateway's address. */
async function serveSite(gateway: string): Promise<Site> {
  const bundled = await build({ entryPoints: [new URL('./page.ts', import.meta.url).pathname], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
  const script = bundled.outputFiles[0]!.contents;
  const input = JSON.stringify({ gateway, key: TEST_KEY });
  const server: Server = createServer((req, res) => {
    if (req.url === '/page.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><script>window.__input = ${input};</script><script type="module" src="/page.js"></script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://localhost:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}

async function runPage(browser: Browser, site: Site): Promise<Record<string, any>> {
  const page = await browser.newPage();
  try {
    await page.goto(site.url);
    await page.waitForFunction(() => window.__results, undefined, { timeout: 30_000 });
    return (await page.evaluate(() => window.__results)) as Record<string, any>;
  } finally {
    await page.close();
  }
}

describe.skipIf(!present)('official SDKs in Chromium, from a page on another origin', () => {
  let fake: FakeLlm;
  let browser: Browser;

  beforeAll(async () => {
    fake = await startFakeLlm();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await fake?.close();
  });

  async function visit(cors?: { origins: string[] }): Promise<{ results: Record<string, any>; gateway: RunningGateway }> {
    const gateway = await startTestGateway({ ...rigConfig(fake.url), ...(cors && { cors }) });
    const site = await serveSite(gateway.url);
    try {
      return { results: await runPage(browser, site), gateway };
    } finally {
      site.close();
      await gateway.close();
    }
  }

  it('with the default configuration every call works as it does from a server, errors readable', async () => {
    const { results, gateway } = await visit();
    const hello = [{ type: 'text', text: 'Hello from the fake model.' }];
    expect(results['anthropic.create']).toEqual({ content: hello, requestId: expect.stringMatching(/^req_/) });
    expect(results['anthropic.stream']).toEqual({ stop: 'end_turn', content: hello });
    // The page reads the 401's class, status and request id: without CORS headers on errors it would see a network failure.
    expect(results['anthropic.badKey']).toMatchObject({ failed: 'AuthenticationError', status: 401, requestID: expect.stringMatching(/^req_/) });
    expect(results['anthropic.translated']).toEqual(['thinking', 'text']);
    expect(results['openai.models']).toContain('gpt-oss-120b');
    expect(results['openai.unknownModel']).toMatchObject({ failed: 'NotFoundError', status: 404 });
    expect(results['genai.generate']).toBe('Hello from the fake model.');
    expect(results['genai.stream']).toBe('Hello from the fake model.');
    // The browser asked before its calls, and was answered before any key check.
    expect(gateway.logs.filter((line) => line.method === 'OPTIONS').map((line) => line.status)).toContain(204);
    expect(gateway.logs.filter((line) => line.method === 'OPTIONS' && line.status !== 204)).toEqual([]);
  });

  it('with cors.origins naming another site, the browser keeps the page from every answer', async () => {
    const { results } = await visit({ origins: ['https://chat.example'] });
    for (const name of ['anthropic.create', 'anthropic.stream', 'openai.models', 'genai.generate']) {
      expect(results[name], name).toMatchObject({ failed: name.startsWith('genai') ? 'TypeError' : 'APIConnectionError' });
    }
  });
});
