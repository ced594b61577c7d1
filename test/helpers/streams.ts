import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { GatewayError } from '../../core/errors.ts';
import type { UpstreamResponse } from '../../core/index.ts';
import type { StreamEvent } from '../../core/ir.ts';

export function fromArray<T>(items: readonly T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const item of items) controller.enqueue(item);
      controller.close();
    },
  });
}

export async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

/** Raw text of `test/fixtures/<name>` (SSE fixtures are kept as wire text). */
export function loadFixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url)), 'utf8');
}

export function loadJsonFixture<T = any>(name: string): T {
  return JSON.parse(loadFixture(name)) as T;
}

/** Bytes of `text`, split into pieces of `size` bytes, to test readers against arbitrary chunking. */
export function bytesInPieces(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

/** Feeds wire `text` through `reader` in pieces of `size` bytes and collects what comes out. */
export function readInPieces<T>(text: string, size: number, reader: ReadableWritablePair<T, Uint8Array>): Promise<T[]> {
  return collect(fromArray(bytesInPieces(text, size)).pipeThrough(reader));
}

/**
 * Stream events as plain objects: a delta read from the upstream's bytes (a SpanTextDelta, or a
 * reasoning delta with its span) as the `{ type, index, text }` it stands for, so tests compare
 * what readers mean.
 */
export function plainEvents(events: StreamEvent[]): StreamEvent[] {
  return events.map((event) => ((event.type === 'text-delta' || event.type === 'reasoning-delta') && event.span ? { type: event.type, index: event.index, text: event.text } : event));
}

/** What a client can tell of a gateway error: compared in tests instead of the error object. */
export function errorView(e: GatewayError) {
  return { kind: e.kind, status: e.status, message: e.message, code: e.opts.code, retryAfter: e.opts.retryAfter };
}

/** An upstream answer's body read through its chunk reader, as UTF-8 text. */
export async function readAnswerText(answer: UpstreamResponse): Promise<string> {
  const reader = answer.reader!();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += Buffer.from(value).toString('utf8');
  }
}
