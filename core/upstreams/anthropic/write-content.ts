/** @see https://docs.anthropic.com/en/api/messages#body-messages-content */
import { GatewayError } from '../../errors.ts';
import type { CacheMark, DocumentPart, ImagePart, MediaSource, RawPart, ReasoningPart, TextPart, ToolCallPart, ToolResultPart, UpstreamKind } from '../../ir.ts';
import type { Warn } from '../types.ts';
import type {
  AnthropicCacheControl,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicRawBlock,
  AnthropicRedactedThinkingBlock,
  AnthropicSource,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolResultBlock,
  AnthropicToolResultContent,
  AnthropicToolUseBlock,
} from './wire-types.ts';

/** What the part writers need to know about the request being written. */
export interface ContentContext {
  /** The upstream kind whose signatures verify here ('anthropic', or 'bedrock' for Claude on Bedrock). */
  origin: UpstreamKind;
  /** anthropic-version 2026-10-21 rules apply (no citations on user text, no assistant documents). */
  strict2026: boolean;
  warn: Warn;
  /** Maps any tool-call id to one Anthropic accepts, the same way for tool_use and tool_result. */
  toolId(id: string): string;
}

export function writeCacheControl(mark: CacheMark | undefined): { cache_control?: AnthropicCacheControl } {
  return mark ? { cache_control: mark.ttl ? { type: 'ephemeral', ttl: mark.ttl } : { type: 'ephemeral' } } : {};
}

/** Empty text is rejected by Anthropic ("text content blocks must be non-empty"), so it is left out. */
export function writeTextBlock(part: TextPart, role: string, ctx: ContentContext): AnthropicTextBlock | undefined {
  if (!part.text) return undefined;
  const block: AnthropicTextBlock = { type: 'text', text: part.text, ...writeCacheControl(part.cache) };
  if (part.citations?.length) {
    if (ctx.strict2026 && role !== 'assistant') ctx.warn('citations on user text dropped: anthropic-version 2026-10-21 rejects them');
    else block.citations = part.citations;
  }
  return block;
}

export function writeImageBlock(part: ImagePart, path: string): AnthropicImageBlock {
  if (part.source.kind === 'text') throw new GatewayError('invalid_request', `${path}: an image cannot have text content`, { param: path });
  return { type: 'image', source: writeSource(part.source), ...writeCacheControl(part.cache) };
}

export function writeDocumentBlock(part: DocumentPart, role: string, path: string, ctx: ContentContext): AnthropicDocumentBlock {
  if (ctx.strict2026 && role === 'assistant') {
    throw new GatewayError('invalid_request', `${path}: anthropic-version 2026-10-21 does not accept documents in assistant turns`, { param: path });
  }
  const block: AnthropicDocumentBlock = { type: 'document', source: writeDocumentSource(part.source) };
  if (part.title !== undefined) block.title = part.title;
  if (part.context !== undefined) block.context = part.context;
  if (part.citations) block.citations = part.citations;
  return { ...block, ...writeCacheControl(part.cache) };
}

function writeSource(source: MediaSource): AnthropicSource {
  switch (source.kind) {
    case 'base64':
      return { type: 'base64', media_type: source.mediaType, data: source.data };
    case 'url':
      return { type: 'url', url: source.url };
    case 'file':
      // Only valid with the Files API (beta header files-api-2025-04-14 from the client).
      return { type: 'file', file_id: source.fileId };
    case 'text':
      return { type: 'text', media_type: 'text/plain', data: source.data };
  }
}

/** Base64 documents other than PDF (text/plain, text/markdown…) are sent as Anthropic text documents. */
function writeDocumentSource(source: MediaSource): AnthropicSource {
  if (source.kind === 'base64' && source.mediaType.startsWith('text/')) {
    const bytes = Uint8Array.from(atob(source.data), (c) => c.charCodeAt(0));
    return { type: 'text', media_type: 'text/plain', data: new TextDecoder().decode(bytes) };
  }
  return writeSource(source);
}

/**
 * Thinking is replayed only with a signature this upstream issued; anything else would be
 * rejected with "Invalid signature in thinking block", so it is dropped (with a warning).
 */
export function writeReasoningBlock(part: ReasoningPart, ctx: ContentContext): AnthropicThinkingBlock | AnthropicRedactedThinkingBlock | undefined {
  if (part.redacted !== undefined) {
    if (!part.signature || part.signature.origin === ctx.origin) return { type: 'redacted_thinking', data: part.redacted };
  } else if (part.signature?.origin === ctx.origin) {
    return { type: 'thinking', thinking: part.text, signature: part.signature.value };
  }
  if (part.text || part.signature || part.redacted) {
    ctx.warn(`reasoning from ${part.signature?.origin ?? 'an unsigned source'} dropped: only ${ctx.origin}-signed thinking can be replayed`);
  }
  return undefined;
}

export function writeToolUseBlock(part: ToolCallPart, ctx: ContentContext): AnthropicToolUseBlock {
  return { type: 'tool_use', id: ctx.toolId(part.id), name: part.name, input: part.input, ...writeCacheControl(part.cache) };
}

export function writeToolResultBlock(part: ToolResultPart, path: string, ctx: ContentContext): AnthropicToolResultBlock {
  const content: AnthropicToolResultContent[] = [];
  part.content.forEach((item, k) => {
    const at = `${path}.content.${k}`;
    if (item.type === 'text' && item.toolReference !== undefined) content.push({ type: 'tool_reference', tool_name: item.toolReference });
    else if (item.type === 'text') {
      const text = writeTextBlock(item, 'user', ctx);
      if (text) content.push(text);
    } else if (item.type === 'image') content.push(writeImageBlock(item, at));
    else content.push(writeDocumentBlock(item, 'user', at, ctx));
  });
  const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: ctx.toolId(part.callId) };
  if (content.length) block.content = content;
  if (part.isError) block.is_error = true;
  return { ...block, ...writeCacheControl(part.cache) };
}

/** Raw blocks are Anthropic's own format: any Anthropic-speaking upstream takes them back. */
export function writeRawBlock(part: RawPart, path: string, ctx: ContentContext): AnthropicRawBlock {
  if (part.origin === 'anthropic' || part.origin === ctx.origin) return part.block;
  const type = typeof part.block.type === 'string' ? ` ${part.block.type}` : '';
  throw new GatewayError('invalid_request', `${path}: a${type} block from ${part.origin} cannot be sent to an Anthropic upstream`, { param: path });
}
