/**
 * The internal representation every family and upstream translates through. Families read
 * client requests into ChatRequest and write ChatResult / StreamEvent back out; upstreams
 * write ChatRequest to their wire format and read their answers back. Anything a wire format
 * carries that has no slot here must either be kept (`raw`, `extra`) or refused: never dropped.
 */
import type { GatewayError } from './errors.ts';
import type { JsonTextSpan } from './http/json-text-span.ts';

export type UpstreamKind = 'anthropic' | 'openai' | 'gemini' | 'bedrock';
export type SourceFamily = 'anthropic' | 'openai' | 'gemini';

/** Anthropic prompt-cache breakpoint; Bedrock maps it to cachePoint. */
export interface CacheMark {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/**
 * Opaque provider state that must come back unchanged on the next turn: an Anthropic thinking
 * signature, a Gemini thoughtSignature, or a gateway-minted one for reasoning text from an
 * OpenAI-compatible host. `origin` says which upstream kind can verify it.
 */
export interface Signature {
  origin: UpstreamKind;
  value: string;
}

export type MediaSource =
  | { kind: 'base64'; mediaType: string; data: string }
  | { kind: 'url'; url: string; mediaType?: string }
  /** A provider-side file reference (Anthropic Files API id, Gemini file URI). */
  | { kind: 'file'; fileId: string; mediaType?: string }
  /** Plain-text document content. */
  | { kind: 'text'; mediaType: string; data: string };

export interface TextPart {
  type: 'text';
  text: string;
  cache?: CacheMark;
  /** Anthropic citations, kept as sent. */
  citations?: unknown[];
  /** Gemini may sign text parts too. */
  signature?: Signature;
  /**
   * In a tool result: an Anthropic `tool_reference` (tool search found this tool), written back as
   * one to Anthropic upstreams. `text` holds the tool's definition as tool search's result shows
   * it, for upstreams without tool search, which are sent every tool in full.
   */
  toolReference?: string;
}

export interface ImagePart {
  type: 'image';
  source: MediaSource;
  cache?: CacheMark;
}

export interface DocumentPart {
  type: 'document';
  source: MediaSource;
  title?: string;
  context?: string;
  citations?: { enabled: boolean };
  cache?: CacheMark;
}

export interface ReasoningPart {
  type: 'reasoning';
  /** Thinking text; empty when the provider omitted it but still signed the block. */
  text: string;
  signature?: Signature;
  /** Anthropic redacted_thinking: `text` is empty and this holds the encrypted `data`. */
  redacted?: string;
}

export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache?: CacheMark;
  /** Gemini thoughtSignature attached to a functionCall part. */
  signature?: Signature;
}

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  /** Known when the history names it (Gemini functionResponse needs the name). */
  name?: string;
  content: Array<TextPart | ImagePart | DocumentPart>;
  isError?: boolean;
  cache?: CacheMark;
}

/**
 * A provider-specific block with no IR meaning (Anthropic server_tool_use, web_search_tool_result,
 * container_upload, …). Sent back only to an upstream of the same kind; elsewhere it is refused.
 */
export interface RawPart {
  type: 'raw';
  origin: UpstreamKind;
  block: Record<string, unknown>;
}

export type Part = TextPart | ImagePart | DocumentPart | ReasoningPart | ToolCallPart | ToolResultPart | RawPart;

export interface Message {
  /** `system` is a mid-conversation system message (newer Claude models). */
  role: 'user' | 'assistant' | 'system';
  parts: Part[];
}

export interface FunctionTool {
  type: 'function';
  name: string;
  description?: string;
  /** JSON Schema of the input object. */
  inputSchema: Record<string, unknown>;
  strict?: boolean;
  cache?: CacheMark;
}

/** A provider-defined tool (Anthropic web_search_20250305, bash_20250124, …): same-kind upstreams only. */
export interface ProviderTool {
  type: 'provider';
  origin: UpstreamKind;
  name: string;
  definition: Record<string, unknown>;
}

export type ToolDef = FunctionTool | ProviderTool;

export type ToolChoice =
  | { type: 'auto'; disableParallel?: boolean }
  | { type: 'any'; disableParallel?: boolean }
  | { type: 'none' }
  | { type: 'tool'; name: string; disableParallel?: boolean };

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ThinkingConfig {
  mode: 'enabled' | 'adaptive' | 'disabled';
  budgetTokens?: number;
  effort?: ReasoningEffort;
  /** Anthropic `display`; `omitted` sends signatures without thinking text. */
  display?: 'summarized' | 'omitted';
}

export interface ResponseFormat {
  type: 'json';
  /** JSON Schema; absent means "any JSON object". */
  schema?: Record<string, unknown>;
  name?: string;
}

export interface ChatRequest {
  /** The upstream's model id (set by routing). */
  model: string;
  system: TextPart[];
  messages: Message[];
  stream: boolean;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  tools?: ToolDef[];
  toolChoice?: ToolChoice;
  thinking?: ThinkingConfig;
  responseFormat?: ResponseFormat;
  /** Anthropic metadata.user_id, OpenAI user / safety_identifier. */
  userId?: string;
  /** Where the request came from, for same-kind extras and beta headers. */
  source: {
    family: SourceFamily;
    /** anthropic-beta values the client sent. */
    betas?: string[];
    /** Client fields with no IR slot, kept by name; an upstream of the same kind may forward them. */
    extra: Record<string, unknown>;
  };
}

export type FinishReason =
  | 'stop'
  | 'length'
  | 'stop-sequence'
  | 'tool-calls'
  | 'content-filter'
  | 'refusal'
  | 'pause'
  | 'context-exceeded'
  | 'error'
  | 'other';

/** Token counts. `inputTokens` excludes cache reads and writes (Anthropic's convention). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Part of outputTokens spent on reasoning, when the upstream says. */
  reasoningTokens?: number;
  /** Searches a provider ran itself (Gemini's Google Search queries, as Anthropic counts web searches). */
  webSearchRequests?: number;
}

export interface ChatResult {
  id: string;
  model: string;
  parts: Part[];
  finish: FinishReason;
  stopSequence?: string;
  usage: Usage;
}

/** What a block starts as; deltas fill it in. */
export type BlockStart =
  | { type: 'text' }
  | { type: 'reasoning'; redacted?: string }
  | { type: 'tool-call'; id: string; name: string; signature?: Signature }
  | { type: 'raw'; origin: UpstreamKind; block: Record<string, unknown> };

/**
 * Stream events. Blocks never overlap: `block-start(i)`, deltas for i, `block-end(i)`, then i+1.
 * Readers guarantee that ordering (buffering interleaved upstream tool calls if needed).
 */
export type StreamEvent =
  | { type: 'start'; id: string; model: string; usage?: Partial<Usage> }
  | { type: 'block-start'; index: number; block: BlockStart }
  | { type: 'text-delta'; index: number; text: string; span?: JsonTextSpan }
  /** `span`: the text as it came in, for a writer to copy (see SpanTextDelta); `text` is decoded all the same. */
  | { type: 'reasoning-delta'; index: number; text: string; span?: JsonTextSpan }
  | { type: 'signature'; index: number; signature: Signature }
  | { type: 'tool-input-delta'; index: number; json: string }
  | { type: 'block-end'; index: number }
  /** Cumulative usage seen so far (upstreams report it at different moments). */
  | { type: 'usage'; usage: Partial<Usage> }
  | { type: 'finish'; reason: FinishReason; stopSequence?: string; usage: Usage }
  | { type: 'error'; error: GatewayError };

/**
 * A text delta whose text is still the JSON string body it arrived as (in an upstream event's
 * bytes, see JsonTextSpan): a writer that finds `span` copies it into its own JSON; any other
 * reader gets `text`, decoded when asked for. It keeps the upstream read it points into alive.
 */
export class SpanTextDelta {
  readonly type = 'text-delta';
  constructor(
    readonly index: number,
    readonly span: JsonTextSpan,
  ) {}

  get text(): string {
    return this.span.text();
  }
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0 });

/** A copy of `partial` with the two required counts filled in (0 when missing). */
export function completeUsage(partial: Partial<Usage>): Usage {
  // Copied, then completed, not `{ ...partial, … }` (see test/unit/http/spread-literals.test.ts).
  const usage = Object.assign({}, partial) as Usage;
  usage.inputTokens = partial.inputTokens ?? 0;
  usage.outputTokens = partial.outputTokens ?? 0;
  return usage;
}
