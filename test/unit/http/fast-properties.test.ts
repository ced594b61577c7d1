import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { UpstreamCall } from '../../../adapters/node-upstream-call.ts';
import { createStreamMeter } from '../../../core/accounting/meter-stream.ts';
import { Context, type GatewayServices } from '../../../core/context.ts';
import { tapPassthroughUsage } from '../../../core/chat/read-passthrough-usage.ts';
import { createAnthropicStreamWriter } from '../../../core/families/anthropic/write-stream.ts';
import { createGeminiStreamWriter } from '../../../core/families/gemini/write-stream.ts';
import { ClientAbort } from '../../../core/http/client-signal.ts';
import { createSseReader } from '../../../core/http/sse-read.ts';
import { pipeStages, stageOf, stageStream } from '../../../core/http/stage.ts';
import { SpanTextDelta, type ChatRequest } from '../../../core/ir.ts';
import { JsonTextSpan } from '../../../core/http/json-text-span.ts';
import { TextDeltaFrame } from '../../../core/families/anthropic/write-frame-text.ts';
import { GeminiTextFrame, writeTextFrameAfter } from '../../../core/families/gemini/write-text-frame.ts';
import { readAnthropicStream } from '../../../core/upstreams/anthropic/read-stream.ts';
import { readBedrockConverseStream, readBedrockInvokeStream } from '../../../core/upstreams/bedrock/read-stream.ts';
import { readGeminiStream } from '../../../core/upstreams/gemini/read-stream.ts';
import { readOpenAIStream, createOpenAIChunkReader } from '../../../core/upstreams/openai/read-stream.ts';
import { readThinkTags } from '../../../core/upstreams/openai/read-think-tags.ts';
import { createStreamBlocks } from '../../../core/upstreams/openai/stream-blocks.ts';
import { listFiles } from '../../helpers/list-files.ts';

// Natives syntax applies to functions compiled after the flag is set, so the probe is built here.
setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

const req = { model: 'm', stream: true, messages: [] } as unknown as ChatRequest;

/** What every stream builds once: readers, writers, meter, and the stages fused inside them. */
const perStream: Array<[string, () => object]> = [
  ['the SSE reader', () => createSseReader()],
  ['a piped stage', () => pipeStages(createSseReader(), createOpenAIChunkReader(req, 'p'))],
  ['a stage stream', () => stageStream(createSseReader())],
  ['the OpenAI chunk reader', () => createOpenAIChunkReader(req, 'p')],
  ['its block bookkeeping', () => createStreamBlocks(() => {})],
  ['its think-tag reader', () => readThinkTags()],
  ['the OpenAI stream stage', () => stageOf(readOpenAIStream(req, 'p'))!],
  ['a text span', () => new JsonTextSpan(new Uint8Array(4), 1, 3)],
  ['a text delta read from bytes', () => new SpanTextDelta(0, new JsonTextSpan(new Uint8Array(4), 1, 3))],
  ['a text delta frame', () => new TextDeltaFrame(0, new JsonTextSpan(new Uint8Array(4), 1, 3))],
  ['a Gemini text frame', () => new GeminiTextFrame(new JsonTextSpan(new Uint8Array(4), 1, 3), writeTextFrameAfter('}').after, writeTextFrameAfter('}').afterBytes)],
  ['the Anthropic stream stage', () => stageOf(readAnthropicStream({ provider: 'p' }))!],
  ['the Gemini stream stage', () => stageOf(readGeminiStream({ provider: 'p', model: 'm' }))!],
  ['the Bedrock invoke stream', () => readBedrockInvokeStream('p')],
  ['the Bedrock Converse stream', () => readBedrockConverseStream('p', 'm')],
  ['the Anthropic stream writer', () => createAnthropicStreamWriter({ model: 'm' })],
  ['the Gemini stream writer', () => createGeminiStreamWriter({ model: 'm' })],
  ['the stream meter', () => createStreamMeter({ settle: () => {} }, { started: 0, signal: new ClientAbort() })],
  ['the passthrough usage tap', () => tapPassthroughUsage({ read: () => new Promise(() => {}), cancel: async () => {} }, 'anthropic', () => {})],
  ["the Node adapter's upstream call", () => new UpstreamCall(() => {}, () => {}, new ClientAbort())],
  [
    "every request's context, its URL and query read",
    () => {
      const ctx = new Context({} as GatewayServices, 'req_1', 'http://h/p?key=k', '/p', 'anthropic', new ClientAbort(), 0, undefined);
      ctx.key = { id: 'me' } as never;
      ctx.model = 'm';
      void ctx.query.get('key');
      void ctx.url.pathname;
      return ctx;
    },
  ],
];

describe('objects made per stream keep fast properties', () => {
  // A getter in an object literal makes the object a dictionary-mode object: slow to read, and
  // with a handful of them every stream's objects survived minor collections (see Stage in
  // core/http/stage.ts). Translated streams cost ~40% more CPU.
  it('the probe tells the two kinds apart', () => {
    let n = 0;
    expect(hasFastProperties({ push: () => n++, stopped: false })).toBe(true);
    expect(hasFastProperties({ push: () => n++, get stopped() { return n > 0; } })).toBe(false);
  });

  it.each(perStream)('%s', (_name, make) => {
    make();
    expect(hasFastProperties(make())).toBe(true);
  });
});

const root = fileURLToPath(new URL('../../../', import.meta.url));
/** Made once per process, not per request. */
const ALLOWED = new Set(['core/accounting/memory-usage-store.ts']);

/** Getters and setters written in object literals (class accessors live on the prototype and are fine). */
function readLiteralAccessors(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && ts.isObjectLiteralExpression(node.parent)) {
      found.push(`${node.name.getText(source)} (line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('no getter or setter in an object literal in core/ or adapters/', () => {
  const files = [...listFiles(join(root, 'core'), '.ts'), ...listFiles(join(root, 'adapters'), '.ts')].filter((f) => !ALLOWED.has(relative(root, f)));

  it.each(files.map((f) => [relative(root, f), f]))('%s', (_name, file) => {
    expect(readLiteralAccessors(file, readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('the checker finds one and passes a class getter', () => {
    expect(readLiteralAccessors('x.ts', 'const o = { get a() { return 1; } };\nclass C { get b() { return 2; } }')).toEqual(['a (line 1)']);
  });
});
