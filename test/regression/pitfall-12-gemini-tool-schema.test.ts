/**
 * Pitfall 12 (CCR #5, new-api #766): tool schemas valid for OpenAI and Anthropic are rejected by
 * Gemini: `format` other than enum/date-time, empty object `properties`, `anyOf` with `null`,
 * `default`, `additionalProperties`, `$schema`. Claude Code's own tools have all of these. They
 * must be rewritten into a schema Gemini accepts, and every change reported in
 * x-switchyard-warnings instead of surfacing as Gemini's 400.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, type RunningGateway } from '../helpers/gateway.ts';
import { postMessages } from './helpers/messages-wire.ts';

let google: FakeUpstream;
let gateway: RunningGateway;

const ANSWER = { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1, totalTokenCount: 6 } };

beforeAll(async () => {
  google = await startFakeUpstream(() => ({ body: ANSWER }));
  gateway = await startTestGateway(
    testConfig({
      providers: { google: { type: 'gemini', baseUrl: google.url, apiKey: 'g-key' } },
      models: [{ id: 'gemini-2.5-pro', routes: [{ provider: 'google', model: 'gemini-2.5-pro' }] }],
    }),
  );
});
afterAll(async () => {
  await gateway.close();
  await google.close();
});
beforeEach(() => {
  google.requests.length = 0;
});

/** Shaped like Claude Code's WebFetch / TodoWrite / ExitPlanMode tools (zod-to-json-schema output). */
const TOOLS = [
  {
    name: 'WebFetch',
    description: 'Fetch a URL',
    input_schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri', description: 'The URL to fetch' },
        since: { type: 'string', format: 'date-time' },
        timeout: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null, description: 'Seconds' },
        mode: { type: 'string', enum: ['markdown', 'html'], default: 'markdown' },
        headers: { type: 'object', properties: {} },
      },
      required: ['url'],
      additionalProperties: false,
    },
  },
  { name: 'ExitPlanMode', description: 'Leave plan mode', input_schema: { type: 'object', properties: {}, additionalProperties: false, $schema: 'http://json-schema.org/draft-07/schema#' } },
];

/** Every keyword Gemini's `parameters` (OpenAPI subset) rejects. */
const REJECTED = new Set(['$schema', 'additionalProperties', 'default', '$ref', '$defs', 'const', 'oneOf', 'allOf', 'examples']);
function rejectedKeywords(node: unknown, path = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => rejectedKeywords(n, `${path}.${i}`));
  if (typeof node !== 'object' || node === null) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    const at = path ? `${path}.${key}` : key;
    if (path.endsWith('properties')) {
      out.push(...rejectedKeywords(value, at));
      continue;
    }
    if (REJECTED.has(key)) out.push(at);
    if (key === 'format' && !['enum', 'date-time', 'int32', 'int64', 'float', 'double'].includes(value as string)) out.push(`${at}=${String(value)}`);
    if (key === 'properties' && Object.keys(value as object).length === 0) out.push(`${at} (empty)`);
    if (key === 'anyOf' && (value as Array<{ type?: string }>).some((m) => m.type === 'null')) out.push(`${at} (null member)`);
    out.push(...rejectedKeywords(value, at));
  }
  return out;
}

describe('pitfall 12: Claude-style tools → Gemini', () => {
  it('the declarations Gemini receives hold nothing it rejects, and keep what it accepts', async () => {
    const res = await postMessages(gateway.url, { model: 'acme.gemini-2.5-pro', max_tokens: 100, tools: TOOLS, messages: [{ role: 'user', content: 'Fetch example.com' }] });
    expect(res.status).toBe(200);
    const declarations = google.requests[0]!.json.tools[0].functionDeclarations;
    expect(rejectedKeywords(declarations)).toEqual([]);
    expect(declarations).toEqual([
      {
        name: 'WebFetch',
        description: 'Fetch a URL',
        parameters: {
          type: 'object',
          properties: {
            url: { type: 'string', description: 'The URL to fetch' },
            since: { type: 'string', format: 'date-time' },
            timeout: { type: 'integer', nullable: true, description: 'Seconds' },
            mode: { type: 'string', enum: ['markdown', 'html'] },
            headers: { type: 'object' },
          },
          required: ['url'],
        },
      },
      // An object without properties: `parameters` is left out (an empty OBJECT is a 400).
      { name: 'ExitPlanMode', description: 'Leave plan mode' },
    ]);
  });

  it('every rewrite is reported in x-switchyard-warnings, per tool and path', async () => {
    const res = await postMessages(gateway.url, { model: 'acme.gemini-2.5-pro', max_tokens: 100, tools: TOOLS, messages: [{ role: 'user', content: 'Fetch example.com' }] });
    const warnings = res.headers.get('x-switchyard-warnings') ?? '';
    for (const expected of [
      'tool "WebFetch" schema rewritten for Gemini',
      '(root): removed "$schema"',
      '(root): removed "additionalProperties"',
      'properties.url: removed unsupported format "uri"',
      'properties.timeout: "anyOf" with "null" rewritten as nullable',
      'properties.timeout: removed "default"',
      'properties.mode: removed "default"',
      'properties.headers: removed empty "properties"',
      'tool "ExitPlanMode" schema rewritten for Gemini',
    ]) {
      expect(warnings).toContain(expected);
    }
  });
});
