import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNode } from '../../adapters/node.ts';
import { startGateway, type StartedGateway } from '../../adapters/startup.ts';
import { openSqlite, type SqliteDb } from '../../adapters/storage/sqlite-driver.ts';
import { sleep, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { anthropicStartChunks, replyWithUsage } from './fixtures/replies.ts';

/**
 * The gateway as every server adapter starts it (startGateway with --config) on the embedded
 * SQLite store, served by the Node adapter: admin API, model allow-lists, TPM reservations and
 * usage records of streams, including streams the client abandons.
 */
const ADMIN = 'sqlite-gateway-admin-token';
const dir = mkdtempSync(join(tmpdir(), 'sy-gw-sqlite-'));
const dbPath = join(dir, 'data', 'switchyard.db');
const configPath = join(dir, 'switchyard.json');
let fake: FakeUpstream;
let gateway: StartedGateway;
let server: Server;
let db: SqliteDb;
let base = '';
let keyId = '';
let secret = '';
const errors: string[] = [];

const CLAUDE = { input_tokens: 21, output_tokens: 15, cache_read_input_tokens: 4 };
const GPT = { prompt_tokens: 40, completion_tokens: 9 };

beforeAll(async () => {
  fake = await startFakeUpstream(replyWithUsage(CLAUDE, GPT));
  writeFileSync(
    configPath,
    JSON.stringify({
      prefix: 'acme',
      providers: {
        claude: { type: 'anthropic', baseUrl: fake.url, apiKey: 'upstream-secret' },
        oai: { type: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'upstream-secret' },
      },
      models: [
        { id: 'claude-x', routes: [{ provider: 'claude', model: 'up-claude' }] },
        { id: 'gpt-x', routes: [{ provider: 'oai', model: 'up-gpt' }] },
        { id: 'other', routes: [{ provider: 'claude', model: 'up-other' }] },
      ],
      storage: { kind: 'sqlite', path: dbPath },
      admin: { token: ADMIN },
      // One record per write, so that a settled call shows up at once.
      usageBatch: { maxRecords: 1, flushMs: 10 },
    }),
  );
  gateway = await startGateway({ argv: ['--config', configPath], say: () => {}, log: () => {}, logError: (_id, err) => errors.push(String(err)) });
  server = await serveNode(gateway, { port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  db = await openSqlite(dbPath);
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await gateway?.close();
  db?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface UsageRow {
  family: string;
  model: string;
  provider: string;
  upstream_model: string;
  status: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  aborted: number;
}

/** Waits until the key has `count` usage records, then returns the newest `take` of them. */
async function records(count: number, take = count): Promise<UsageRow[]> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const rows = db.all<UsageRow>(
      `SELECT family, model, provider, upstream_model, status, input_tokens, output_tokens, cache_read_tokens, aborted
       FROM sy_usage WHERE key_id = ? ORDER BY rowid`,
      [keyId],
    );
    if (rows.length >= count) {
      expect(rows).toHaveLength(count);
      return rows.slice(count - take);
    }
    if (Date.now() > deadline) throw new Error(`expected ${count} usage records, found ${rows.length}`);
    await sleep(10);
  }
}

const row = (family: string, model: 'claude-x' | 'gpt-x', input: number, output: number, cacheRead: number, aborted = 0): UsageRow => ({
  family,
  model,
  provider: model === 'claude-x' ? 'claude' : 'oai',
  upstream_model: model === 'claude-x' ? 'up-claude' : 'up-gpt',
  status: 200,
  input_tokens: input,
  output_tokens: output,
  cache_read_tokens: cacheRead,
  aborted,
});

const auth = () => ({ 'x-api-key': secret, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });
const messages = (body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${base}/api/anthropic/v1/messages`, { method: 'POST', headers: auth(), body: JSON.stringify(body), signal });
// Reserves about 6,030 tokens of the key's 10,000 a minute: two such calls cannot be in flight together.
const big = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 6000, messages: [{ role: 'user', content: 'Hi' }], ...extra });

/** Reads the streamed response until `marker` has arrived. */
async function readUntil(res: Response, marker: string): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(marker)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before "${marker}": ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

describe('startGateway on SQLite, served by the Node adapter', () => {
  it('the admin API creates a key limited to two models; all three listings show only those', async () => {
    const created = await fetch(`${base}/admin/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'limited', models: ['acme.claude-x', 'gpt-x'], tpm: 10_000 }),
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { key: { id: string }; secret: string };
    ({ secret } = body);
    keyId = body.key.id;
    expect(body.key).toEqual({ id: keyId, name: 'limited', prefix: secret.slice(0, 10), status: 'active', createdAt: expect.any(String), models: ['claude-x', 'gpt-x'], tpm: 10_000 });

    const openai = (await (await fetch(`${base}/api/openai/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).json()) as { data: Array<{ id: string }> };
    expect(openai.data.map((m) => m.id)).toEqual(['claude-x', 'gpt-x']);
    const anthropic = (await (await fetch(`${base}/api/anthropic/v1/models`, { headers: auth() })).json()) as { data: Array<{ id: string }> };
    expect(anthropic.data.map((m) => m.id)).toEqual(['claude-x', 'gpt-x']);
    const gemini = (await (await fetch(`${base}/api/gemini/v1beta/models`, { headers: { 'x-goog-api-key': secret } })).json()) as { models: Array<{ name: string }> };
    expect(gemini.models.map((m) => m.name)).toEqual(['models/acme.claude-x', 'models/acme.gpt-x']);
  });

  it('a model outside the allow-list is a 403 in the Anthropic and Gemini envelopes, and nothing reaches the upstream', async () => {
    const sent = fake.requests.length;
    const anthropic = await messages({ model: 'other', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });
    expect(anthropic.status).toBe(403);
    expect(await anthropic.json()).toEqual({ type: 'error', error: { type: 'permission_error', message: 'This API key may not use model "other"' }, request_id: expect.stringMatching(/^req_/) });
    const gemini = await fetch(`${base}/api/gemini/v1beta/models/acme.other:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': secret, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
    });
    expect(gemini.status).toBe(403);
    expect(await gemini.json()).toEqual({ error: { code: 403, message: 'This API key may not use model "other"', status: 'PERMISSION_DENIED' } });
    expect(fake.requests.length).toBe(sent);
    await sleep(30);
    expect(db.all('SELECT * FROM sy_usage WHERE key_id = ?', [keyId])).toEqual([]);
  });

  it('streams record the upstream usage: SSE passthrough and translated SSE', async () => {
    const passthrough = await messages(big('claude-x', { stream: true }));
    expect(passthrough.status).toBe(200);
    expect(await passthrough.text()).toContain('"output_tokens":15');
    expect(await records(1)).toEqual([row('anthropic', 'claude-x', 21, 15, 4)]);

    const translated = await messages(big('gpt-x', { stream: true }));
    expect(translated.status).toBe(200);
    expect(await translated.text()).toContain('event: message_stop');
    expect(await records(2, 1)).toEqual([row('anthropic', 'gpt-x', 40, 9, 0)]);
  });

  it('a client abort mid-stream settles as aborted with the usage so far and releases the TPM reservation', async () => {
    // The upstream sends message_start (input 25) and a first text delta, then waits.
    fake.reply(() => ({ chunks: anthropicStartChunks({ input_tokens: 25, output_tokens: 0 }), hang: true }));
    const probe = () => messages(big('claude-x'));

    // Passthrough (Claude-style client, Anthropic upstream).
    const abort = new AbortController();
    const open = await messages(big('claude-x', { stream: true }), abort.signal);
    await readUntil(open, '"Hel"');
    const held = await probe();
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await held.json()) as { error: { message: string } }).error.message).toMatch(/^Token limit reached: this API key allows 10000 tokens per minute and this request reserves \d+/);
    abort.abort();
    await fake.waitForAborts(1);
    expect(await records(3, 1)).toEqual([row('anthropic', 'claude-x', 25, 1, 0, 1)]);
    fake.reply(replyWithUsage(CLAUDE, GPT));
    expect((await probe()).status).toBe(200);
    await records(4);

    // Translated (Gemini-style client, same Anthropic upstream): usage from message_start too.
    fake.reply(() => ({ chunks: anthropicStartChunks({ input_tokens: 25, output_tokens: 0 }), hang: true }));
    const abort2 = new AbortController();
    const open2 = await fetch(`${base}/api/gemini/v1beta/models/acme.claude-x:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': secret, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { maxOutputTokens: 6000 } }),
      signal: abort2.signal,
    });
    expect(open2.status).toBe(200);
    await readUntil(open2, '"Hel"');
    expect((await probe()).status).toBe(429);
    abort2.abort();
    await fake.waitForAborts(2);
    expect(await records(5, 1)).toEqual([row('gemini', 'claude-x', 25, 1, 0, 1)]);
    fake.reply(replyWithUsage(CLAUDE, GPT));
    expect((await probe()).status).toBe(200);
    expect(await records(6, 1)).toEqual([row('anthropic', 'claude-x', 21, 15, 4)]);
    // A client abort on a translated stream logs nothing: no stage touches the cancelled stream.
    expect(errors).toEqual([]);
  });
});
