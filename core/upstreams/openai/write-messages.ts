/** @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages */
import { GatewayError } from '../../errors.ts';
import type { ChatRequest, Message, TextPart } from '../../ir.ts';
import { isMintedFor } from '../../signature.ts';
import { rawRefusal, writeOpenAIUserTurn, type TurnContext } from './write-user-turn.ts';
import type { OpenAIMessage, OpenAIToolCall } from './types.ts';

/**
 * Claude Code's first system block (`x-anthropic-billing-header: …; cch=…`) changes on every
 * request. Hosts here cache by prompt prefix only, so it goes last instead of first: otherwise the
 * whole system prompt would miss the cache each turn (pitfall 17).
 */
const VOLATILE = /^\s*x-anthropic-billing-header\b/;

/**
 * System parts with the per-request ones moved to the end, order otherwise kept. Every upstream
 * that caches by prefix (implicitly, or up to a Bedrock cachePoint) needs this.
 */
export function volatileLast<T extends { text: string }>(parts: readonly T[]): T[] {
  return [...parts.filter((p) => !VOLATILE.test(p.text)), ...parts.filter((p) => VOLATILE.test(p.text))];
}

export function writeOpenAIMessages(req: ChatRequest, ctx: TurnContext): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  const system = writeSystem(req.system);
  if (system) out.push(system);
  req.messages.forEach((message, n) => {
    if (message.role === 'user') out.push(...writeOpenAIUserTurn(message, n, ctx));
    else if (message.role === 'assistant') out.push(writeAssistantTurn(message, n, ctx));
    else out.push(writeMidSystem(message, n, ctx));
  });
  return out;
}

function writeSystem(parts: TextPart[]): OpenAIMessage | undefined {
  const text = volatileLast(parts).map((p) => p.text).filter(Boolean).join('\n\n');
  return text ? { role: 'system', content: text } : undefined;
}

function writeMidSystem(message: Message, n: number, ctx: TurnContext): OpenAIMessage {
  const texts = message.parts.map((part, m) => {
    if (part.type === 'text') return part.text;
    if (part.type === 'raw') throw rawRefusal(part.block, part.origin, `messages.${n}.content.${m}`, ctx.name);
    throw new GatewayError('invalid_request', `${part.type}: a system message may contain only text`, { param: `messages.${n}.content.${m}` });
  });
  return { role: 'system', content: texts.join('\n\n') };
}

/**
 * Reasoning goes back only where the provider is configured to take it (DeepSeek needs it after
 * tool calls; Groq rejects it) and only if it is text this gateway minted for an OpenAI-compatible
 * host and the client returned unchanged. Anthropic or Gemini thinking means nothing here.
 */
function writeAssistantTurn(message: Message, n: number, ctx: TurnContext): OpenAIMessage {
  let text = '';
  let reasoning = '';
  const calls: OpenAIToolCall[] = [];
  message.parts.forEach((part, m) => {
    const param = `messages.${n}.content.${m}`;
    switch (part.type) {
      case 'text':
        text += part.text;
        break;
      case 'tool-call':
        calls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: writeArguments(part.input) } });
        break;
      case 'reasoning':
        if (ctx.config.replayReasoning && !part.redacted && part.text && isMintedFor(part.text, part.signature)) reasoning += part.text;
        else ctx.warn('reasoning: earlier reasoning was dropped (this host does not take it back)');
        break;
      case 'raw':
        throw rawRefusal(part.block, part.origin, param, ctx.name);
      case 'image':
      case 'document':
      case 'tool-result':
        throw new GatewayError('invalid_request', `${part.type}: an assistant message sent to an OpenAI-compatible host may contain only text, reasoning and tool calls`, { param });
      default:
        part satisfies never;
    }
  });
  const out: OpenAIMessage = { role: 'assistant', content: text || (calls.length ? null : '') };
  if (calls.length) out.tool_calls = calls;
  if (reasoning) out[ctx.config.reasoningField] = reasoning;
  return out;
}

/** Arguments that did not parse when read (kept as `{_raw}`) go back exactly as the model wrote them. */
function writeArguments(input: Record<string, unknown>): string {
  const keys = Object.keys(input);
  if (keys.length === 1 && keys[0] === '_raw' && typeof input._raw === 'string') return input._raw;
  return JSON.stringify(input);
}
