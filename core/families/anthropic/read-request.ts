/** @see https://platform.claude.com/docs/en/api/messages */
import type { CacheMark, ChatRequest, DocumentPart, FunctionTool, ImagePart, MediaSource, Message, Part, ResponseFormat, TextPart, ThinkingConfig, ToolCallPart, ToolChoice, ToolDef, ToolResultPart } from '../../ir.ts';
import { readSignature } from '../../signature.ts';
import type { Warn } from '../../upstreams/types.ts';
import { readUnknownFields } from '../read-unknown-fields.ts';
import type {
  AnthropicCacheControl,
  AnthropicContentBlock,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicTextBlock,
  AnthropicThinking,
  AnthropicTool,
  AnthropicToolChoice,
  AnthropicToolResultBlock,
  CountTokensRequest,
  MessagesRequest,
} from './schema.ts';

export interface ReadAnthropicOptions {
  stream: boolean;
  /** The anthropic-beta header values. */
  betas?: string[];
  /** Told about block and tool fields the IR has no slot for (they are dropped). */
  warn?: Warn;
}

type Block = Record<string, unknown> & { type: string };

/** Top-level fields read into IR slots; every other field lands in source.extra by name. */
const MAPPED = new Set(['model', 'max_tokens', 'messages', 'system', 'stop_sequences', 'stream', 'temperature', 'top_p', 'top_k', 'metadata', 'tools', 'tool_choice', 'thinking', 'output_config', 'output_format', 'cache_control']);

/** A validated Messages (or count_tokens) body → ChatRequest. The body is not modified. */
export function readAnthropicRequest(body: MessagesRequest | CountTokensRequest, opts: ReadAnthropicOptions): ChatRequest {
  const warn: Warn = opts.warn ?? (() => {});
  const extra = readUnknownFields(body, MAPPED);
  const full = body as Partial<MessagesRequest>;

  const tools: ToolIndex = { calls: new Map(), defs: body.tools ?? [] };
  const messages = body.messages.map((m, i): Message => ({
    role: m.role,
    parts: readContent(m.content, `messages.${i}.content`, tools, warn),
  }));
  const system = body.system === undefined ? [] : readContent(body.system, 'system', tools, warn) as TextPart[];

  const req: ChatRequest = { model: body.model, system, messages, stream: opts.stream, source: { family: 'anthropic', extra } };
  if (opts.betas?.length) req.source.betas = opts.betas;
  if (full.max_tokens !== undefined) req.maxTokens = full.max_tokens;
  if (full.temperature !== undefined) req.temperature = full.temperature;
  if (full.top_p !== undefined) req.topP = full.top_p;
  if (full.top_k !== undefined) req.topK = full.top_k;
  if (full.stop_sequences !== undefined) req.stop = full.stop_sequences;
  if (full.metadata) {
    const { user_id, ...rest } = full.metadata;
    if (user_id) req.userId = user_id;
    if (Object.keys(rest).length) extra.metadata = rest;
  }
  if (body.tools) req.tools = body.tools.map((t, i) => readTool(t, `tools.${i}`, warn));
  if (body.tool_choice) req.toolChoice = readToolChoice(body.tool_choice);

  const { effort, format, ...otherOutput } = body.output_config ?? {};
  if (body.thinking) {
    const thinking = readThinking(body.thinking, warn);
    if (thinking) req.thinking = effort ? { ...thinking, effort } : thinking;
    else extra.thinking = body.thinking;
  }
  // Effort without a thinking mode steers the whole answer; only an Anthropic upstream can say that.
  if (effort && !req.thinking) otherOutput.effort = effort;
  if (Object.keys(otherOutput).length) extra.output_config = otherOutput;
  const schemaFormat = format ?? body.output_format;
  if (schemaFormat) req.responseFormat = { type: 'json', schema: schemaFormat.schema } satisfies ResponseFormat;

  if (body.cache_control && !markLastCacheable(req, readCache(body.cache_control)!)) extra.cache_control = body.cache_control;
  return req;
}

/** The calls made so far in the conversation (their names, by id) and the request's tools. */
interface ToolIndex {
  calls: Map<string, string>;
  /** Looked through only for a tool_reference, which few requests hold: no map made per request. */
  defs: readonly AnthropicTool[];
}

function readContent(content: string | readonly unknown[], path: string, tools: ToolIndex, warn: Warn): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const parts: Part[] = [];
  (content as AnthropicContentBlock[]).forEach((block, i) => {
    const part = readBlock(block, `${path}.${i}`, tools, warn);
    const previous = parts.at(-1);
    // A tool call's foreign signature (Gemini thoughtSignature) travels in an empty thinking block
    // just before it (see write-response.ts); put it back on the call.
    if (part.type === 'tool-call' && !part.signature && previous?.type === 'reasoning' && previous.text === '' && !previous.redacted && previous.signature && previous.signature.origin !== 'anthropic') {
      parts.pop();
      part.signature = previous.signature;
    }
    parts.push(part);
  });
  return parts;
}

function readBlock(block: AnthropicContentBlock, path: string, tools: ToolIndex, warn: Warn): Part {
  switch (block.type) {
    case 'text':
      return readText(block as AnthropicTextBlock, path, warn);
    case 'image':
      return readImage(block as AnthropicImageBlock, path, warn);
    case 'document': {
      const doc = block as AnthropicDocumentBlock;
      return doc.source.type === 'content' ? raw(block) : readDocument(doc, path, warn);
    }
    case 'tool_use': {
      const b = block as Extract<AnthropicContentBlock, { type: 'tool_use' }>;
      warnUnknown(b, ['type', 'id', 'name', 'input', 'cache_control', 'caller'], path, warn);
      tools.calls.set(b.id, b.name);
      return withCache<ToolCallPart>({ type: 'tool-call', id: b.id, name: b.name, input: b.input }, b.cache_control);
    }
    case 'tool_result':
      return readToolResult(block as AnthropicToolResultBlock, path, tools, warn);
    case 'thinking': {
      const b = block as Extract<AnthropicContentBlock, { type: 'thinking' }>;
      const signature = readSignature(b.signature, 'anthropic');
      return signature ? { type: 'reasoning', text: b.thinking, signature } : { type: 'reasoning', text: b.thinking };
    }
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: (block as { data: string }).data };
    default:
      // search_result, server_tool_use, *_tool_result, container_upload, …: only an Anthropic upstream knows them.
      return raw(block);
  }
}

function readText(b: AnthropicTextBlock, path: string, warn: Warn): TextPart {
  warnUnknown(b, ['type', 'text', 'cache_control', 'citations'], path, warn);
  const part = withCache<TextPart>({ type: 'text', text: b.text }, b.cache_control);
  if (b.citations?.length) part.citations = b.citations;
  return part;
}

function readImage(b: AnthropicImageBlock, path: string, warn: Warn): ImagePart {
  warnUnknown(b, ['type', 'source', 'cache_control'], path, warn);
  const s = b.source;
  const source: MediaSource =
    s.type === 'base64' ? { kind: 'base64', mediaType: s.media_type, data: s.data } : s.type === 'url' ? { kind: 'url', url: s.url } : { kind: 'file', fileId: s.file_id };
  return withCache<ImagePart>({ type: 'image', source }, b.cache_control);
}

function readDocument(b: AnthropicDocumentBlock, path: string, warn: Warn): DocumentPart {
  warnUnknown(b, ['type', 'source', 'title', 'context', 'citations', 'cache_control'], path, warn);
  const s = b.source;
  let source: MediaSource;
  if (s.type === 'base64') source = { kind: 'base64', mediaType: s.media_type, data: s.data };
  // Anthropic URL documents are always PDFs; saying so lets other upstreams fetch them right.
  else if (s.type === 'url') source = { kind: 'url', url: s.url, mediaType: 'application/pdf' };
  else if (s.type === 'text') source = { kind: 'text', mediaType: s.media_type ?? 'text/plain', data: s.data };
  else if (s.type === 'file') source = { kind: 'file', fileId: s.file_id };
  else throw new Error('content documents are read as raw blocks');
  const part = withCache<DocumentPart>({ type: 'document', source }, b.cache_control);
  if (b.title != null) part.title = b.title;
  if (b.context != null) part.context = b.context;
  if (b.citations?.enabled !== undefined) part.citations = { enabled: b.citations.enabled };
  return part;
}

function readToolResult(b: AnthropicToolResultBlock, path: string, tools: ToolIndex, warn: Warn): Part {
  const content: ToolResultPart['content'] = [];
  if (typeof b.content === 'string') {
    if (b.content !== '') content.push({ type: 'text', text: b.content });
  } else if (Array.isArray(b.content)) {
    for (const [i, item] of (b.content as Block[]).entries()) {
      const itemPath = `${path}.content.${i}`;
      if (item.type === 'text') content.push(readText(item as AnthropicTextBlock, itemPath, warn));
      else if (item.type === 'image') content.push(readImage(item as AnthropicImageBlock, itemPath, warn));
      else if (item.type === 'document' && (item as AnthropicDocumentBlock).source.type !== 'content') content.push(readDocument(item as AnthropicDocumentBlock, itemPath, warn));
      else if (item.type === 'tool_reference' && typeof item.tool_name === 'string') content.push(readToolReference(item.tool_name, tools));
      // search_result, content documents: the whole result stays Anthropic-only.
      else return raw(b);
    }
  }
  warnUnknown(b, ['type', 'tool_use_id', 'content', 'is_error', 'cache_control'], path, warn);
  const part = withCache<ToolResultPart>({ type: 'tool-result', callId: b.tool_use_id, content }, b.cache_control);
  const name = tools.calls.get(b.tool_use_id);
  if (name) part.name = name;
  if (b.is_error) part.isError = true;
  return part;
}

/**
 * Tool search's find (Claude Code's ToolSearch answers with these): an Anthropic upstream loads
 * the named tool's definition itself. Any other upstream is sent every tool in full, so the
 * model there reads the definition as the text tool search's result stands for, in the form
 * ToolSearch's own description promises (`<functions><function>{…}</function></functions>`);
 * refused instead, Claude Code asked three times, then turned tool search off for the session.
 */
function readToolReference(name: string, tools: ToolIndex): TextPart {
  const def = tools.defs.find((t) => t.name === name);
  const schema = def && 'input_schema' in def ? { description: def.description, name, parameters: def.input_schema } : { name };
  return { type: 'text', text: `<functions>\n<function>${JSON.stringify(schema)}</function>\n</functions>`, toolReference: name };
}

function readTool(t: AnthropicTool, path: string, warn: Warn): ToolDef {
  if (t.type && t.type !== 'custom') return { type: 'provider', origin: 'anthropic', name: t.name ?? t.type, definition: t };
  const tool = t as Extract<AnthropicTool, { input_schema: unknown }>;
  warnUnknown(tool, ['type', 'name', 'description', 'input_schema', 'strict', 'cache_control'], path, warn);
  const def = withCache<FunctionTool>({ type: 'function', name: tool.name, inputSchema: tool.input_schema }, tool.cache_control);
  if (tool.description != null) def.description = tool.description;
  if (tool.strict != null) def.strict = tool.strict;
  return def;
}

function readToolChoice(c: AnthropicToolChoice): ToolChoice {
  const parallel = 'disable_parallel_tool_use' in c && c.disable_parallel_tool_use != null ? { disableParallel: c.disable_parallel_tool_use as boolean } : {};
  if (c.type === 'tool') return { type: 'tool', name: (c as { name: string }).name, ...parallel };
  if (c.type === 'none') return { type: 'none' };
  return { type: c.type as 'auto' | 'any', ...parallel };
}

const DISPLAYS = new Set(['summarized', 'omitted']);

function readThinking(t: AnthropicThinking, warn: Warn): ThinkingConfig | undefined {
  const asked = 'display' in t ? (t.display as string | null | undefined) : undefined;
  // Other display modes only change how reasoning is shown, never the answer: shown as summaries.
  if (asked && !DISPLAYS.has(asked)) warn(`thinking.display "${asked}" has no equivalent on this route; reasoning is shown as "summarized"`);
  const display = asked ? { display: (DISPLAYS.has(asked) ? asked : 'summarized') as 'summarized' | 'omitted' } : {};
  if (t.type === 'enabled') return { mode: 'enabled', budgetTokens: (t as { budget_tokens: number }).budget_tokens, ...display };
  if (t.type === 'adaptive') return { mode: 'adaptive', ...display };
  if (t.type === 'disabled') return { mode: 'disabled' };
  return undefined;
}

function readCache(cc: AnthropicCacheControl | null | undefined): CacheMark | undefined {
  if (!cc) return undefined;
  return cc.ttl ? { type: 'ephemeral', ttl: cc.ttl } : { type: 'ephemeral' };
}

function withCache<T extends { cache?: CacheMark }>(part: T, cc: AnthropicCacheControl | null | undefined): T {
  const cache = readCache(cc);
  if (cache) part.cache = cache;
  return part;
}

function raw(block: Record<string, unknown>): Part {
  return { type: 'raw', origin: 'anthropic', block };
}

function warnUnknown(block: Record<string, unknown>, known: readonly string[], path: string, warn: Warn): void {
  for (const key of Object.keys(block)) {
    if (!known.includes(key) && block[key] != null) warn(`${path}.${key} has no equivalent outside Anthropic and was dropped`);
  }
}

/**
 * Top-level cache_control asks for a breakpoint on the last cacheable block. Placing it here
 * keeps prompt caching working on upstreams that only know per-block marks (Bedrock).
 */
function markLastCacheable(req: ChatRequest, mark: CacheMark): boolean {
  const tools = (req.tools ?? []).filter((t) => t.type === 'function');
  const groups: Array<ReadonlyArray<{ type: string; cache?: CacheMark }>> = [tools, req.system, ...req.messages.map((m) => m.parts)];
  for (let g = groups.length - 1; g >= 0; g--) {
    const group = groups[g]!;
    for (let i = group.length - 1; i >= 0; i--) {
      const part = group[i]!;
      if (part.type === 'reasoning' || part.type === 'raw') continue;
      part.cache ??= mark;
      return true;
    }
  }
  return false;
}
