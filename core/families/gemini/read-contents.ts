/** @see https://ai.google.dev/api/caching#Content */
import type { Message, Part } from '../../ir.ts';
import { readGeminiFunctionResponse } from './read-function-response.ts';
import { readGeminiFileData, readGeminiInlineData } from './read-media.ts';
import type { GeminiContent, GeminiPart } from './schema.ts';
import { readThoughtSignature } from './thought-signature.ts';

interface OpenCall {
  id: string;
  name: string;
  answered: boolean;
}

/**
 * `contents` → IR messages. Consecutive same-role contents are merged (the SDK's streaming chat
 * stores one content per chunk), and so are the text and reasoning pieces of a streamed model
 * turn. Calls without an id get a deterministic one from their position; results are paired
 * with the calls of the preceding model turn by id when given, else the k-th result named N with
 * the k-th call named N, else by position.
 */
export function readGeminiContents(contents: readonly GeminiContent[]): Message[] {
  const messages: Message[] = [];
  let calls: OpenCall[] = [];
  contents.forEach((content, ci) => {
    const role = content.role === 'model' ? 'assistant' : 'user';
    let message = messages.at(-1);
    if (message?.role !== role) {
      if (role === 'assistant') calls = [];
      message = { role, parts: [] };
      messages.push(message);
    }
    const target = message.parts;
    content.parts.forEach((part, pi) => {
      const path = `contents.${ci}.parts.${pi}`;
      const fallbackId = `call_${ci}_${pi}`;
      if (part.functionCall) calls.push({ id: part.functionCall.id || fallbackId, name: part.functionCall.name, answered: false });
      for (const next of readPart(part, path, calls, fallbackId)) {
        if (role === 'assistant') pushMerged(target, next);
        else target.push(next);
      }
    });
  });
  return messages;
}

/** Marks reasoning rebuilt from a signature that carried its own text (see thought-signature.ts). */
const withText = new WeakSet<Part>();

/**
 * Streamed text arrives in pieces, and reasoning text also arrives as `thought` parts while its
 * signature comes on a later part: join them back into the parts the upstream produced.
 */
function pushMerged(target: Part[], next: Part): void {
  const last = target.at(-1);
  if (next.type === 'reasoning' && withText.has(next)) {
    // The signature carries the full text: the visible thought parts were only a copy.
    while (isLoose(target.at(-1))) target.pop();
    target.push(next);
    return;
  }
  if (next.type === 'reasoning' && !next.redacted && last?.type === 'reasoning' && isLoose(last)) {
    target[target.length - 1] = { ...next, text: last.text + next.text };
    return;
  }
  if (next.type === 'text' && last?.type === 'text' && !last.signature) {
    target[target.length - 1] = { ...next, text: last.text + next.text };
    return;
  }
  target.push(next);
}

function isLoose(part: Part | undefined): boolean {
  return part?.type === 'reasoning' && !part.signature && part.redacted === undefined;
}

/**
 * One Gemini part → IR parts. A Gemini signature stays on the part that carried it; a foreign
 * one becomes the reasoning part it stands for, placed before the part that carried it.
 */
function readPart(part: GeminiPart, path: string, calls: OpenCall[], fallbackId: string): Part[] {
  const read = readThoughtSignature(part.thoughtSignature);
  if (part.thought) {
    if (read?.withText || read?.reasoning?.redacted !== undefined) return [mark(read)];
    if (read?.reasoning) return [{ ...read.reasoning, text: part.text ?? '' }];
    return part.text || read?.native ? [{ type: 'reasoning', text: part.text ?? '', ...(read?.native && { signature: read.native }) }] : [];
  }
  const before: Part[] = read?.reasoning ? [mark(read)] : [];
  const signature = read?.native ? { signature: read.native } : {};
  if (part.functionCall) {
    const { name, args } = part.functionCall;
    return [...before, { type: 'tool-call', id: part.functionCall.id || fallbackId, name, input: args ?? {}, ...signature }];
  }
  if (part.functionResponse) {
    const callId = matchCall(calls, part.functionResponse) ?? fallbackId;
    return [...before, readGeminiFunctionResponse(part.functionResponse, callId, `${path}.functionResponse`)];
  }
  if (part.inlineData) return [...before, readGeminiInlineData(part.inlineData, `${path}.inlineData`)];
  if (part.fileData) return [...before, readGeminiFileData(part.fileData, `${path}.fileData`)];
  if (part.executableCode || part.codeExecutionResult || hasUnknownData(part)) {
    // Code execution and newer part kinds mean something only to Gemini.
    return [...before, { type: 'raw', origin: 'gemini', block: { ...part } }];
  }
  if (part.text || read?.native) return [...before, { type: 'text', text: part.text ?? '', ...signature }];
  return before;
}

function mark(read: { reasoning?: Part; withText?: boolean }): Part {
  if (read.withText) withText.add(read.reasoning!);
  return read.reasoning!;
}

function matchCall(calls: OpenCall[], response: { id?: string; name: string }): string | undefined {
  if (response.id) {
    const call = calls.find((c) => c.id === response.id);
    if (call) call.answered = true;
    return response.id;
  }
  const named = calls.filter((c) => c.name === response.name);
  // A second response to an answered call (a re-sent turn) stays with that call, where the
  // upstream writers merge it, instead of becoming a result for a call that does not exist.
  const call = named.find((c) => !c.answered) ?? named.at(-1) ?? calls.find((c) => !c.answered);
  if (!call) return undefined;
  call.answered = true;
  return call.id;
}

/** Flags and metadata that may sit on a part without being its data. */
const PART_FLAGS = new Set(['text', 'thought', 'thoughtSignature', 'videoMetadata', 'mediaResolution', 'partMetadata']);

function hasUnknownData(part: GeminiPart): boolean {
  return Object.keys(part).some((key) => !PART_FLAGS.has(key));
}
