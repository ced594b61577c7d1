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
 * Relays `body` unchanged and reports the usage it carried when it ends (`aborted` false) or the
 * client goes away (`aborted` true, with what was seen so far). A plain pull-through stream, not a
 * TransformStream: one stream object and no extra promise hop per chunk on the fast path.
 */
export function tapPassthroughUsage(body: ReadableStream<Uint8Array>, family: SourceFamily, done: (usage: Usage | undefined, aborted: boolean) => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const seen: Partial<Record<keyof Usage, number>> = {};
  let tail = '';
  let finished = false;
  const finish = (aborted: boolean) => {
    if (finished) return;
    finished = true;
    done(toUsage(family, seen), aborted);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let result: Awaited<ReturnType<typeof reader.read>>;
        try {
          result = await reader.read();
        } catch (err) {
          finish(false);
          controller.error(err);
          return;
        }
        if (finished) return;
        if (result.done) {
          finish(false);
          controller.close();
          return;
        }
        controller.enqueue(result.value);
        const text = tail + decoder.decode(result.value, { stream: true });
        for (const [pattern, field] of FIELDS[family]) {
          for (const match of text.matchAll(pattern)) seen[field] = Number(match[1]);
        }
        tail = text.slice(-OVERLAP);
      },
      cancel(reason) {
        finish(true);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
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
