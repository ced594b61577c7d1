/** @see https://ai.google.dev/gemini-api/docs/thought-signatures */
import type { Message } from '../../ir.ts';
import type { Warn } from '../types.ts';
import { isGemini3 } from './model-traits.ts';
import { keepGeminiCallIds } from './tool-call-id.ts';
import { writeGeminiModelParts } from './write-model-parts.ts';
import { writeGeminiUserParts } from './write-user-parts.ts';
import type { GeminiContent } from './wire-types.ts';

/** Google's documented value for function calls Gemini did not produce (other vendors' history). */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/**
 * IR messages → contents: roles user/model, consecutive same-role turns merged (a system message
 * becomes user text). For Gemini 3, the first functionCall of every step in the current turn must
 * carry a signature; steps that lost theirs (another family's history, a client that cannot keep
 * it) get Google's escape value, and the client is told. Call ids go only where Gemini issued them.
 */
export function writeGeminiContents(messages: Message[], model: string, warn: Warn): GeminiContent[] {
  const callNames = new Map<string, string>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') callNames.set(p.id, p.name);

  const contents: GeminiContent[] = [];
  /** Index of the message each content started at. */
  const starts: number[] = [];
  let droppedReasoning = 0;
  messages.forEach((message, i) => {
    const path = `messages.${i}`;
    if (message.role === 'system') warn(`${path}: a system message inside the conversation was sent to Gemini as user text`);
    const role = message.role === 'assistant' ? 'model' : 'user';
    const written = role === 'model' ? writeGeminiModelParts(message.parts, path, warn) : writeGeminiUserParts(message, path, callNames, warn);
    droppedReasoning += written.droppedReasoning;
    if (!written.parts.length) return;
    const last = contents[contents.length - 1];
    if (last?.role === role) last.parts.push(...written.parts);
    else {
      contents.push({ role, parts: written.parts });
      starts.push(i);
    }
  });
  keepGeminiCallIds(contents);
  if (droppedReasoning) warn(`${droppedReasoning} reasoning block(s) not produced by Gemini were dropped (Gemini cannot verify them)`);
  if (isGemini3(model)) signCurrentTurn(messages, contents, starts, warn);
  return contents;
}

function signCurrentTurn(messages: Message[], contents: GeminiContent[], starts: number[], warn: Warn): void {
  // The current turn starts after the last user message that says something (not only tool results).
  let turnStart = -1;
  messages.forEach((m, i) => {
    if (m.role !== 'assistant' && m.parts.some((p) => p.type !== 'tool-result')) turnStart = i;
  });
  let unsigned = 0;
  contents.forEach((content, k) => {
    if (content.role !== 'model' || starts[k]! <= turnStart) return;
    const call = content.parts.find((p) => p.functionCall);
    if (call && !call.thoughtSignature) {
      call.thoughtSignature = SKIP_SIGNATURE;
      unsigned++;
    }
  });
  if (unsigned) warn(`${unsigned} function-call step(s) in the current turn had no Gemini thought signature; sent with "${SKIP_SIGNATURE}"`);
}
