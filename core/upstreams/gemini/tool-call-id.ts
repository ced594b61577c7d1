/** @see https://ai.google.dev/gemini-api/docs/function-calling */
import type { GeminiContent } from './wire-types.ts';

/**
 * Gemini 2.5 and older return function calls without ids, but every client family needs one.
 * Synthesised ids carry a marker so the writer can leave them out on the way back (Gemini 3
 * rejects ids it did not issue); Gemini's own ids are echoed as they are.
 */
const SYNTHETIC = 'gx_';

/** Google's documented stand-ins for a missing signature: they say nothing about who made the call. */
const DUMMY_SIGNATURES = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

export function synthesizeCallId(responseId: string | undefined, n: number): string {
  const stem = responseId ? responseId.replace(/[^A-Za-z0-9_-]/g, '_') : randomStem();
  return `${SYNTHETIC}${stem}_${n}`;
}

export function isSyntheticCallId(id: string): boolean {
  return id.startsWith(SYNTHETIC);
}

/**
 * Gemini 3 rejects functionCall / functionResponse ids it did not issue, and history from other
 * upstreams is full of them (`toolu_…`, `call_…`, `tooluse_…`). A model turn came from Gemini
 * when one of its functionCall parts carries a Gemini signature (Gemini 3 signs the first call of
 * every step); only such turns keep their call ids, and a response keeps its id only when it
 * answers one of those calls. The rest go without ids and pair by position, which works because
 * results are always written in call order. Google's dummy signatures (a Gemini client may have
 * put one on such a turn already) do not count; this runs before the writer adds its own.
 */
export function keepGeminiCallIds(contents: GeminiContent[]): void {
  const issued = new Set<string>();
  for (const content of contents) {
    if (content.role !== 'model') continue;
    const calls = content.parts.filter((p) => p.functionCall);
    const fromGemini = calls.some((p) => p.thoughtSignature && !DUMMY_SIGNATURES.has(p.thoughtSignature));
    for (const { functionCall: call } of calls) {
      if (call!.id === undefined) continue;
      if (fromGemini) issued.add(call!.id);
      else delete call!.id;
    }
  }
  for (const content of contents) {
    if (content.role !== 'user') continue;
    for (const { functionResponse: response } of content.parts) {
      if (response?.id !== undefined && !issued.has(response.id)) delete response.id;
    }
  }
}

function randomStem(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_');
}
