/** @see https://ai.google.dev/gemini-api/docs/function-calling */

/**
 * Gemini 2.5 and older return function calls without ids, but every client family needs one.
 * Synthesised ids carry a marker so the writer can leave them out on the way back (Gemini 3
 * rejects ids it did not issue); Gemini's own ids are echoed as they are.
 */
const SYNTHETIC = 'gx_';

export function synthesizeCallId(responseId: string | undefined, n: number): string {
  const stem = responseId ? responseId.replace(/[^A-Za-z0-9_-]/g, '_') : randomStem();
  return `${SYNTHETIC}${stem}_${n}`;
}

export function isSyntheticCallId(id: string): boolean {
  return id.startsWith(SYNTHETIC);
}

function randomStem(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_');
}
