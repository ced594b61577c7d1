/** @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages */
import { GatewayError } from '../../errors.ts';
import type { Message, ToolResultPart } from '../../ir.ts';
import type { Warn } from '../types.ts';
import { writeOpenAIDocument, writeOpenAIImage, type MediaContext } from './write-media.ts';
import type { OpenAIContentPart, OpenAIMessage } from './types.ts';

export interface TurnContext extends MediaContext {
  /** Deduplicating: each distinct message is reported once per request. */
  warn: Warn;
}

/**
 * One IR user turn → `tool` messages (one per result, in order, since they must directly follow
 * the assistant's tool_calls) and then one `user` message with the rest. Tool messages carry
 * text only, so images and files from tool results move into that user message.
 */
export function writeOpenAIUserTurn(message: Message, n: number, ctx: TurnContext): OpenAIMessage[] {
  const tools: Array<Extract<OpenAIMessage, { role: 'tool' }>> = [];
  const moved: OpenAIContentPart[] = [];
  const rest: OpenAIContentPart[] = [];
  message.parts.forEach((part, m) => {
    const param = `messages.${n}.content.${m}`;
    switch (part.type) {
      case 'text':
        if (part.text) rest.push({ type: 'text', text: part.text });
        break;
      case 'image':
        rest.push(writeOpenAIImage(part, param, ctx));
        break;
      case 'document':
        rest.push(writeOpenAIDocument(part, param, ctx));
        break;
      case 'tool-result': {
        const written = writeToolResult(part, param, moved, ctx);
        // Two results for one call (a re-sent turn) are a 400 upstream: they become one message.
        const same = tools.find((t) => t.tool_call_id === written.tool_call_id);
        if (same) same.content = [same.content, written.content].filter(Boolean).join('\n\n');
        else tools.push(written);
        break;
      }
      case 'reasoning':
        ctx.warn('reasoning: earlier reasoning was dropped (this host does not take it back)');
        break;
      case 'tool-call':
        throw new GatewayError('invalid_request', 'tool-call: a tool call can only appear in an assistant message', { param });
      case 'raw':
        throw rawRefusal(part.block, part.origin, param, ctx.name);
      default:
        part satisfies never;
    }
  });
  const content = [...moved, ...rest];
  if (!content.length) return tools;
  const only = content[0];
  const user: OpenAIMessage = { role: 'user', content: content.length === 1 && only?.type === 'text' ? only.text : content };
  return [...tools, user];
}

function writeToolResult(part: ToolResultPart, param: string, moved: OpenAIContentPart[], ctx: TurnContext): Extract<OpenAIMessage, { role: 'tool' }> {
  const texts: string[] = [];
  part.content.forEach((inner, k) => {
    const innerParam = `${param}.content.${k}`;
    if (inner.type === 'text') texts.push(inner.text);
    else if (inner.type === 'image') {
      moved.push(writeOpenAIImage(inner, innerParam, ctx));
      ctx.warn('tool-result: images were moved into a user message (tool messages carry text only)');
    } else {
      const written = writeOpenAIDocument(inner, innerParam, ctx);
      if (written.type === 'text') texts.push(written.text);
      else {
        moved.push(written);
        ctx.warn('tool-result: files were moved into a user message (tool messages carry text only)');
      }
    }
  });
  const text = texts.join('\n\n');
  return { role: 'tool', tool_call_id: part.callId, content: part.isError ? `Error: ${text}` : text };
}

export function rawRefusal(block: Record<string, unknown>, origin: string, param: string, name: string): GatewayError {
  const type = typeof block.type === 'string' ? block.type : 'provider';
  return new GatewayError('invalid_request', `${type}: the ${origin} "${type}" block cannot be sent to OpenAI-compatible host "${name}"`, { param });
}
