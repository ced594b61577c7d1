import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { listFiles } from '../../helpers/list-files.ts';

/**
 * On Node 20 (V8 11.3) an object literal that opens with a spread and goes on with more
 * properties, `{ ...base, extra }`, is built on a slow path when the copy gains keys `base`
 * lacks: ~1 µs in a loop against ~0.1 µs for `Object.assign({}, base)` then assignments, and a
 * stream meter whose settlement was such a literal of conditional spreads cost ~4 µs per stream.
 * Rewriting the dozen such literals on the per-request and per-stream paths made the core path
 * of a translated stream ~12% cheaper and, under load, ~12–16% less CPU per stream (bench/README.md,
 * eighth round). The files below run per request or per stream event; they keep that shape out.
 * (`{ key, ...rest }`, a spread after other properties, is fast and allowed.)
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const HOT = [
  'core/app.ts',
  'core/gateway.ts',
  'core/keys.ts',
  'core/chat',
  'core/accounting',
  'core/http',
  'core/families/anthropic/write-stream.ts',
  'core/families/gemini/write-stream.ts',
  'core/families/openai',
  'core/upstreams/anthropic/read-events.ts',
  'core/upstreams/anthropic/read-stream.ts',
  'core/upstreams/anthropic/read-usage.ts',
  'core/upstreams/openai/read-stream.ts',
  'core/upstreams/openai/stream-blocks.ts',
  'core/upstreams/openai/read-think-tags.ts',
  'core/upstreams/gemini/read-stream.ts',
  'core/upstreams/anthropic/index.ts',
  'core/upstreams/gemini/index.ts',
  'core/upstreams/openai/index.ts',
  'core/upstreams/bedrock/index.ts',
  'core/upstreams/bedrock/read-stream.ts',
  'adapters/node.ts',
  'adapters/node-io.ts',
  'adapters/node-request.ts',
  'adapters/node-upstream.ts',
  'adapters/node-upstream-call.ts',
  'adapters/upstream-answer.ts',
  'adapters/bun-response.ts',
  'adapters/bun-upstream.ts',
  'adapters/http1-client.ts',
  'adapters/node-sockets.ts',
  'adapters/http1-response.ts',
  'adapters/http1-headers.ts',
];


/** Object literals whose first element is a spread and that have more after it. */
function readSpreadFirstLiterals(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node) && node.properties.length > 1 && ts.isSpreadAssignment(node.properties[0]!)) {
      found.push(`${node.getText(source).replace(/\s+/g, ' ').slice(0, 60)} (line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('no object literal opening with a spread on the hot path', () => {
  const files = HOT.flatMap((path) => listFiles(join(root, path), '.ts'));

  it('covers the files it names', () => {
    expect(files.length).toBeGreaterThan(HOT.length);
  });

  it.each(files.map((f) => [relative(root, f), f]))('%s', (_name, file) => {
    expect(readSpreadFirstLiterals(file, readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('the checker finds the slow shape and passes the fast ones', () => {
    const text = 'const a = { ...b, c: 1 };\nconst d = { c: 1, ...b };\nconst e = { ...b };\nconst f = Object.assign({}, b);';
    expect(readSpreadFirstLiterals('x.ts', text)).toEqual(['{ ...b, c: 1 } (line 1)']);
  });
});
