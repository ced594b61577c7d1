/** @see https://docs.anthropic.com/en/api/messages#body-messages */
import type { Message, Part } from '../../ir.ts';
import {
  writeDocumentBlock,
  writeImageBlock,
  writeRawBlock,
  writeReasoningBlock,
  writeTextBlock,
  writeToolResultBlock,
  writeToolUseBlock,
  type ContentContext,
} from './write-content.ts';
import type { AnthropicMessageParam, AnthropicRequestBlock, AnthropicToolResultBlock } from './wire-types.ts';

type Role = AnthropicMessageParam['role'];

export interface MessagesContext extends ContentContext {
  /** Keep mid-conversation `system` turns (a Claude-style client sent them); otherwise they become user text. */
  nativeSystem: boolean;
}

/**
 * IR turns → Anthropic turns that the API accepts: consecutive same-role turns merged, empty
 * blocks and turns left out, tool results moved to the front of their user turn with one
 * tool_result per tool_use id.
 */
export function writeAnthropicMessages(messages: Message[], ctx: MessagesContext): AnthropicMessageParam[] {
  const turns: AnthropicMessageParam[] = [];
  messages.forEach((message, i) => {
    let role: Role = message.role;
    if (role === 'system' && !ctx.nativeSystem) {
      ctx.warn('mid-conversation system message sent as user text');
      role = 'user';
    }
    message.parts.forEach((part, j) => {
      const written = writePart(part, role, `messages.${i}.parts.${j}`, ctx);
      if (!written) return;
      const last = turns.at(-1);
      if (last && last.role === written.role) last.content.push(written.block);
      else turns.push({ role: written.role, content: [written.block] });
    });
  });
  for (const turn of turns) if (turn.role === 'user') turn.content = toolResultsFirst(turn.content);
  return turns;
}

function writePart(part: Part, role: Role, path: string, ctx: ContentContext): { role: Role; block: AnthropicRequestBlock } | undefined {
  switch (part.type) {
    case 'text': {
      const block = writeTextBlock(part, role, ctx);
      return block && { role, block };
    }
    case 'image':
      return { role, block: writeImageBlock(part, path) };
    case 'document':
      return { role, block: writeDocumentBlock(part, role, path, ctx) };
    case 'reasoning': {
      if (role !== 'assistant') {
        ctx.warn('reasoning outside an assistant turn dropped');
        return undefined;
      }
      const block = writeReasoningBlock(part, ctx);
      return block && { role, block };
    }
    case 'tool-call':
      return { role: 'assistant', block: writeToolUseBlock(part, ctx) };
    case 'tool-result':
      return { role: 'user', block: writeToolResultBlock(part, path, ctx) };
    case 'raw':
      return { role, block: writeRawBlock(part, path, ctx) };
    default: {
      const never: never = part;
      return never;
    }
  }
}

/**
 * Anthropic wants the tool_result blocks first in the user turn that follows the tool_use, and
 * rejects two results for one id (they appear when a history is converted twice or merged):
 * those are combined into one block.
 */
function toolResultsFirst(blocks: AnthropicRequestBlock[]): AnthropicRequestBlock[] {
  const results = new Map<string, AnthropicToolResultBlock>();
  const rest: AnthropicRequestBlock[] = [];
  for (const block of blocks) {
    if (block.type !== 'tool_result') {
      rest.push(block);
      continue;
    }
    const result = block as AnthropicToolResultBlock;
    const seen = results.get(result.tool_use_id);
    results.set(result.tool_use_id, seen ? mergeResults(seen, result) : result);
  }
  return results.size ? [...results.values(), ...rest] : blocks;
}

function mergeResults(a: AnthropicToolResultBlock, b: AnthropicToolResultBlock): AnthropicToolResultBlock {
  const merged: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: a.tool_use_id };
  const content = [...(a.content ?? []), ...(b.content ?? [])];
  if (content.length) merged.content = content;
  if (a.is_error || b.is_error) merged.is_error = true;
  const cache = b.cache_control ?? a.cache_control;
  if (cache) merged.cache_control = cache;
  return merged;
}

/**
 * Ids from other providers (`functions.WebSearch:3`, `Bash:12`) fail Anthropic's
 * ^[a-zA-Z0-9_-]+$; they are rewritten once per request so tool_use and tool_result still match.
 */
export function createToolIdMap(): (id: string) => string {
  const mapped = new Map<string, string>();
  const used = new Set<string>();
  return (id) => {
    const known = mapped.get(id);
    if (known !== undefined) return known;
    const base = id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'toolu';
    let out = base;
    for (let n = 2; used.has(out); n++) out = `${base}_${n}`;
    mapped.set(id, out);
    used.add(out);
    return out;
  };
}
