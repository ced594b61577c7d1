/** @see https://platform.openai.com/docs/api-reference/chat/object */
import type { ChatResult, FinishReason, Part } from '../../ir.ts';
import type { ReadRequest } from '../types.ts';
import { mintReasoningSignature } from '../../signature.ts';
import { mapOpenAIFinishReason } from './map-finish-reason.ts';
import { readOpenAIErrorBody } from './read-error.ts';
import { readThinkTags } from './read-think-tags.ts';
import { readOpenAIToolInput } from './read-tool-input.ts';
import { readOpenAIUsage } from './read-usage.ts';
import type { OpenAIChatCompletion, OpenAIMessageFields } from './types.ts';

/** A chat.completion body → ChatResult. Only the first choice is read (the gateway never sends `n`). */
export function readOpenAIResponse(body: unknown, req: ReadRequest, name: string): ChatResult {
  const completion = (typeof body === 'object' && body !== null ? body : {}) as OpenAIChatCompletion;
  // Some hosts (OpenRouter) answer 200 with an error body.
  if (completion.error !== undefined && !completion.choices?.length) {
    throw readOpenAIErrorBody(completion, name);
  }
  const choice = completion.choices?.find((c) => (c.index ?? 0) === 0) ?? completion.choices?.[0];
  const message: OpenAIMessageFields = choice?.message ?? {};
  const parts = readMessageParts(message, typeof completion.id === 'string' ? completion.id : '');
  let finish: FinishReason = mapOpenAIFinishReason(choice?.finish_reason);
  // Gemini's OpenAI-compatible endpoint answers tool calls with "stop" (pitfall 15).
  if (finish === 'stop' && parts.some((p) => p.type === 'tool-call')) finish = 'tool-calls';
  else if (finish === 'stop' && message.refusal) finish = 'refusal';
  return {
    id: typeof completion.id === 'string' ? completion.id : '',
    model: typeof completion.model === 'string' && completion.model ? completion.model : req.model,
    parts,
    finish,
    usage: readOpenAIUsage(completion.usage),
  };
}

function readMessageParts(message: OpenAIMessageFields, completionId: string): Part[] {
  const parts: Part[] = [];
  let reasoning = firstText(message.reasoning_content, message.reasoning);
  let content = typeof message.content === 'string' ? message.content : '';
  if (!reasoning && content) {
    const tags = readThinkTags();
    const pieces = [...tags.push(content), ...tags.end()];
    reasoning = pieces.filter((p) => p.kind === 'reasoning').map((p) => p.text).join('');
    content = pieces.filter((p) => p.kind === 'text').map((p) => p.text).join('');
  }
  if (reasoning) parts.push({ type: 'reasoning', text: reasoning, signature: mintReasoningSignature(reasoning) });
  if (content) parts.push({ type: 'text', text: content });
  if (message.refusal) parts.push({ type: 'text', text: message.refusal });
  // Invented ids must differ between answers too: a conversation holds many turns' calls.
  const stem = completionId.replace(/[^A-Za-z0-9_-]/g, '') || Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('');
  for (const [i, call] of (message.tool_calls ?? []).entries()) {
    if (call.type !== undefined && call.type !== 'function') continue;
    parts.push({
      type: 'tool-call',
      id: call.id || `call_${stem}_${i}`,
      name: call.function?.name ?? '',
      input: readOpenAIToolInput(call.function?.arguments),
    });
  }
  return parts;
}

function firstText(...values: Array<string | null | undefined>): string {
  for (const value of values) if (typeof value === 'string' && value) return value;
  return '';
}
