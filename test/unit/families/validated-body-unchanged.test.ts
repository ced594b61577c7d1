import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../../../core/errors.ts';
import { readAnthropicRequest } from '../../../core/families/anthropic/read-request.ts';
import { MessagesRequest } from '../../../core/families/anthropic/schema.ts';
import { readGeminiRequest } from '../../../core/families/gemini/read-request.ts';
import { GeminiGenerateContentRequest } from '../../../core/families/gemini/schema.ts';
import type { ChatRequest } from '../../../core/ir.ts';
import { writeAnthropicRequest } from '../../../core/upstreams/anthropic/write-request.ts';
import { writeBedrockInvokeBody } from '../../../core/upstreams/bedrock/write-invoke.ts';
import { writeBedrockConverseRequest } from '../../../core/upstreams/bedrock/write-request.ts';
import { writeGeminiRequest } from '../../../core/upstreams/gemini/write-request.ts';
import { writeOpenAIRequest } from '../../../core/upstreams/openai/write-request.ts';
import { parseWith } from '../../../core/validate.ts';

/*
 * A body that passes its schema's compiled check is its own validated output (no copy), and one
 * route's translation (the request is read once) may be followed by another route's: nothing on
 * the way may change it. Every object of it is frozen here, so a write anywhere throws.
 */

const read = (path: string): unknown => JSON.parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8'));

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const noWarn = () => {};

/** Each upstream's writer; a refusal (a part that upstream cannot take) is an answer too. */
const writers: Record<string, (req: ChatRequest) => unknown> = {
  anthropic: (req) => writeAnthropicRequest(req, { type: 'anthropic', baseUrl: 'https://api.anthropic.com/', apiKey: 'k', version: '2023-06-01' }, noWarn),
  openai: (req) =>
    writeOpenAIRequest(req, 'oss', { type: 'openai', baseUrl: 'https://host.example/v1/', apiKey: 'k', reasoningField: 'reasoning_content', replayReasoning: true, maxTokensField: 'max_tokens', supportsFiles: true }, noWarn),
  gemini: (req) => writeGeminiRequest(req, { type: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com/', apiKey: 'k', apiVersion: 'v1beta' }, noWarn),
  'bedrock converse': (req) => writeBedrockConverseRequest(req, noWarn),
  'bedrock invoke': (req) => writeBedrockInvokeBody(req, noWarn),
};

function writeAll(req: ChatRequest): string[] {
  const written: string[] = [];
  for (const [name, write] of Object.entries(writers)) {
    try {
      write(req);
      written.push(name);
    } catch (err) {
      if (!isGatewayError(err)) throw err;
    }
  }
  return written;
}

describe('a validated body is read and written without being changed', () => {
  const cases = [
    // The rich bodies hold parts some upstreams refuse; the bench bodies go to all five.
    { family: 'Claude-style', path: 'test/fixtures/anthropic/family-request-all-blocks.json', writes: 2 },
    { family: 'Claude-style', path: 'bench/bodies/claude-openai-sse.json', writes: 5 },
    { family: 'Gemini-style', path: 'test/fixtures/gemini/family-request-all-parts.json', writes: 1 },
    { family: 'Gemini-style', path: 'bench/bodies/gemini-stream.json', writes: 5 },
  ];
  for (const { family, path, writes } of cases) {
    it(`${family}: ${path}, through every upstream writer`, () => {
      const sent = read(path);
      const body = deepFreeze(structuredClone(sent)) as Record<string, unknown>;
      const req =
        family === 'Claude-style'
          ? readAnthropicRequest(validated(MessagesRequest, body), { stream: true, warn: noWarn })
          : readGeminiRequest(validated(GeminiGenerateContentRequest, body), { model: 'claude-x', stream: true, warn: noWarn });
      expect(writeAll(req).length).toBeGreaterThanOrEqual(writes);
      expect(body).toStrictEqual(sent);
    });
  }
});

/** The body itself: the compiled check passed it, so no copy was made. */
function validated<T>(schema: Parameters<typeof parseWith>[0], body: Record<string, unknown>): T {
  const output = parseWith(schema, body);
  expect(output).toBe(body);
  return output as T;
}
