import type { SourceFamily, Usage } from '../ir.ts';

/**
 * Usage fields as each family's own JSON names them. A passthrough body is relayed untouched, so
 * instead of parsing it the tap scans the text for these counters (the last value seen wins:
 * both families report cumulative numbers, Anthropic in message_start then message_delta).
 */
const FIELDS: Record<SourceFamily, Array<[RegExp, keyof Usage]>> = {
  anthropic: [
    [/"input_tokens"\s*:\s*(\d+)/g, 'inputTokens'],
    [/"output_tokens"\s*:\s*(\d+)/g, 'outputTokens'],
    [/"cache_read_input_tokens"\s*:\s*(\d+)/g, 'cacheReadTokens'],
    [/"cache_creation_input_tokens"\s*:\s*(\d+)/g, 'cacheWriteTokens'],
  ],
  gemini: [
    [/"promptTokenCount"\s*:\s*(\d+)/g, 'inputTokens'],
    [/"candidatesTokenCount"\s*:\s*(\d+)/g, 'outputTokens'],
    [/"thoughtsTokenCount"\s*:\s*(\d+)/g, 'reasoningTokens'],
    [/"cachedContentTokenCount"\s*:\s*(\d+)/g, 'cacheReadTokens'],
  ],
  openai: [],
};

/** Keeps enough of the previous chunk that a field split across two chunks is still seen. */
const OVERLAP = 64;

/**
 * Relays bytes unchanged and reports the usage they carried when the body ends (`aborted` false)
 * or the client goes away (`aborted` true, with what was seen so far).
 */
export function tapPassthroughUsage(family: SourceFamily, done: (usage: Usage | undefined, aborted: boolean) => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const seen: Partial<Record<keyof Usage, number>> = {};
  let tail = '';
  let finished = false;
  const finish = (aborted: boolean) => {
    if (finished) return;
    finished = true;
    done(toUsage(family, seen), aborted);
  };
  const transformer: Transformer<Uint8Array, Uint8Array> & { cancel(): void } = {
    transform(chunk, controller) {
      controller.enqueue(chunk);
      const text = tail + decoder.decode(chunk, { stream: true });
      for (const [pattern, field] of FIELDS[family]) {
        for (const match of text.matchAll(pattern)) seen[field] = Number(match[1]);
      }
      tail = text.slice(-OVERLAP);
    },
    flush() {
      finish(false);
    },
    cancel() {
      finish(true);
    },
  };
  return new TransformStream(transformer);
}

function toUsage(family: SourceFamily, seen: Partial<Record<keyof Usage, number>>): Usage | undefined {
  if (seen.inputTokens === undefined && seen.outputTokens === undefined) return undefined;
  const usage: Usage = { inputTokens: seen.inputTokens ?? 0, outputTokens: seen.outputTokens ?? 0 };
  if (seen.cacheReadTokens !== undefined) usage.cacheReadTokens = seen.cacheReadTokens;
  if (seen.cacheWriteTokens !== undefined) usage.cacheWriteTokens = seen.cacheWriteTokens;
  if (family === 'gemini') {
    // Gemini's prompt count includes cached tokens and its candidates exclude thoughts; the IR's
    // input excludes cache reads and its output includes reasoning.
    usage.inputTokens = Math.max(0, usage.inputTokens - (usage.cacheReadTokens ?? 0));
    usage.outputTokens += seen.reasoningTokens ?? 0;
    if (seen.reasoningTokens !== undefined) usage.reasoningTokens = seen.reasoningTokens;
  }
  return usage;
}
