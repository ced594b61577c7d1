import type { ChunkReader } from '../http/reply.ts';
import type { SourceFamily, Usage } from '../ir.ts';

/**
 * Usage fields as each family's own JSON names them. A passthrough body is relayed untouched, so
 * instead of parsing it the tap scans the text for these counters (the last value seen wins:
 * both families report cumulative numbers, Anthropic in message_start then message_delta).
 */
const FIELDS: Record<SourceFamily, Record<string, keyof Usage>> = {
  anthropic: {
    input_tokens: 'inputTokens',
    output_tokens: 'outputTokens',
    cache_read_input_tokens: 'cacheReadTokens',
    cache_creation_input_tokens: 'cacheWriteTokens',
  },
  gemini: {
    promptTokenCount: 'inputTokens',
    candidatesTokenCount: 'outputTokens',
    thoughtsTokenCount: 'reasoningTokens',
    cachedContentTokenCount: 'cacheReadTokens',
  },
  openai: {},
};

/** One pass per chunk: an alternation of the family's field names. */
const PATTERNS = Object.fromEntries(
  Object.entries(FIELDS).map(([family, fields]) => [family, new RegExp(`"(${Object.keys(fields).join('|') || '(?!)'})"\\s*:\\s*(\\d+)`, 'g')]),
) as Record<SourceFamily, RegExp>;

/** Keeps enough of the previous chunk that a field split across two chunks is still seen. */
const OVERLAP = 64;

/** Reads the usage counters out of a whole passthrough body (a JSON answer). */
export function readPassthroughUsage(body: string | Uint8Array, family: SourceFamily): Usage | undefined {
  const seen: Partial<Record<keyof Usage, number>> = {};
  scan(typeof body === 'string' ? body : decoder.decode(body), family, seen);
  return toUsage(family, seen);
}

const decoder = new TextDecoder();

/**
 * Relays `body` unchanged and reports the usage it carried when it ends (`aborted` false) or the
 * client goes away (`aborted` true, with what was seen so far). A reader around a reader: no
 * stream object and no extra promise hop per chunk on the fast path.
 */
export function tapPassthroughUsage(body: ChunkReader, family: SourceFamily, done: (usage: Usage | undefined, aborted: boolean) => void): ChunkReader {
  const chunkDecoder = new TextDecoder();
  const seen: Partial<Record<keyof Usage, number>> = {};
  let tail = '';
  let finished = false;
  const finish = (aborted: boolean) => {
    if (finished) return;
    finished = true;
    done(toUsage(family, seen), aborted);
  };
  return {
    async read() {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await body.read();
      } catch (err) {
        finish(false);
        throw err;
      }
      if (result.done) {
        finish(false);
        return result;
      }
      if (!finished) {
        const text = tail + chunkDecoder.decode(result.value, { stream: true });
        scan(text, family, seen);
        tail = text.slice(-OVERLAP);
      }
      return result;
    },
    cancel(reason) {
      finish(true);
      return body.cancel(reason);
    },
  };
}

function scan(text: string, family: SourceFamily, seen: Partial<Record<keyof Usage, number>>): void {
  const fields = FIELDS[family];
  for (const match of text.matchAll(PATTERNS[family])) seen[fields[match[1]!]!] = Number(match[2]);
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
