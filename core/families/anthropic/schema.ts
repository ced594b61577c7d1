/** @see https://platform.claude.com/docs/en/api/messages */
import * as v from 'valibot';
import { indexedVariant } from '../../indexed-variant.ts';
import { jsonObject, notArray, parseWith } from '../../validate.ts';

/*
 * Request schemas for the Claude-style front door. Objects are loose: fields this file does not
 * name are kept, so they reach `source.extra` (and a same-kind upstream) instead of vanishing.
 * Most optional fields accept null because the official SDK types allow it.
 */

const Str = v.string('must be a string');
const Bool = v.boolean('must be true or false');
const Num = v.number('must be a number');
const Int = v.pipe(v.number('must be a number'), v.integer('must be an integer'));
const NonNegInt = v.pipe(Int, v.minValue(0, 'must be 0 or more'));
const JsonObject = jsonObject('must be a JSON object');

/** A loose object whose missing fields read "is required" rather than valibot's key-issue text. */
function obj<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  return v.looseObject(entries, (issue) => (issue.expected === 'Object' ? 'must be an object' : 'is required'));
}

/** `obj` for an object whose fields are all optional, outside a variant: an array is refused, not read as `{}`. */
function optionsObj<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  return notArray(obj(entries));
}

/** `string | Block[]` without a union, so a bad block is reported alone, not next to "must be a string". */
function stringOr<const TArray extends v.GenericSchema>(array: TArray, message: string): v.GenericSchema<string | v.InferInput<TArray>, string | v.InferOutput<TArray>> {
  const invalid = v.custom<never>(() => false, message);
  return v.lazy((input): v.GenericSchema => (typeof input === 'string' ? Str : Array.isArray(input) ? array : invalid));
}

export const AnthropicCacheControl = obj({
  type: v.literal('ephemeral', 'must be "ephemeral"'),
  ttl: v.nullish(v.picklist(['5m', '1h'], 'must be "5m" or "1h"')),
});
const Cache = v.nullish(AnthropicCacheControl);

/** A `type` no known variant claims, so an unknown block is kept while a broken known one is refused. */
function otherType(known: readonly string[]) {
  return v.pipe(Str, v.check((type) => !known.includes(type), 'is not valid here'));
}

export const AnthropicTextBlock = obj({
  type: v.literal('text', 'must be "text" (only text blocks are allowed here)'),
  text: Str,
  cache_control: Cache,
  citations: v.nullish(v.array(v.unknown(), 'must be an array')),
});

const ImageSource = indexedVariant(v.variant(
  'type',
  [
    obj({ type: v.literal('base64'), media_type: Str, data: Str }),
    obj({ type: v.literal('url'), url: Str }),
    obj({ type: v.literal('file'), file_id: Str }),
  ],
  'must be "base64", "url" or "file"',
));

export const AnthropicImageBlock = obj({ type: v.literal('image'), source: ImageSource, cache_control: Cache });

const DocumentSource = indexedVariant(v.variant(
  'type',
  [
    obj({ type: v.literal('base64'), media_type: Str, data: Str }),
    obj({ type: v.literal('url'), url: Str }),
    obj({ type: v.literal('text'), media_type: v.optional(Str), data: Str }),
    obj({ type: v.literal('content'), content: stringOr(v.array(JsonObject), 'must be a string or an array of blocks') }),
    obj({ type: v.literal('file'), file_id: Str }),
  ],
  'must be "base64", "url", "text", "content" or "file"',
));

export const AnthropicDocumentBlock = obj({
  type: v.literal('document'),
  source: DocumentSource,
  title: v.nullish(Str),
  context: v.nullish(Str),
  citations: v.nullish(optionsObj({ enabled: v.optional(Bool) })),
  cache_control: Cache,
});

export const AnthropicSearchResultBlock = obj({
  type: v.literal('search_result'),
  source: Str,
  title: Str,
  content: v.array(AnthropicTextBlock, 'must be an array of text blocks'),
  cache_control: Cache,
});

/** tool_reference and future tool-result content kinds. */
const OtherResultContent = obj({ type: otherType(['text', 'image', 'document', 'search_result']) });

export const AnthropicToolResultBlock = obj({
  type: v.literal('tool_result'),
  tool_use_id: Str,
  content: v.nullish(
    stringOr(
      v.array(
        indexedVariant(v.variant('type', [AnthropicTextBlock, AnthropicImageBlock, AnthropicDocumentBlock, AnthropicSearchResultBlock, OtherResultContent], 'must be a content block with a string "type"')),
      ),
      'must be a string or an array of blocks',
    ),
  ),
  is_error: v.nullish(Bool),
  cache_control: Cache,
});

export const AnthropicToolUseBlock = obj({
  type: v.literal('tool_use'),
  id: Str,
  name: Str,
  input: JsonObject,
  cache_control: Cache,
});

export const AnthropicThinkingBlock = obj({ type: v.literal('thinking'), thinking: Str, signature: v.nullish(Str) });
export const AnthropicRedactedThinkingBlock = obj({ type: v.literal('redacted_thinking'), data: Str });

const KNOWN_BLOCKS = ['text', 'image', 'document', 'search_result', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'];
/** server_tool_use, web_search_tool_result, container_upload, …: kept as they are. */
export const AnthropicOtherBlock = obj({ type: otherType(KNOWN_BLOCKS) });

export const AnthropicContentBlock = indexedVariant(v.variant(
  'type',
  [
    AnthropicTextBlock,
    AnthropicImageBlock,
    AnthropicDocumentBlock,
    AnthropicSearchResultBlock,
    AnthropicToolUseBlock,
    AnthropicToolResultBlock,
    AnthropicThinkingBlock,
    AnthropicRedactedThinkingBlock,
    AnthropicOtherBlock,
  ],
  'must be a content block with a string "type"',
));

const Content = stringOr(v.array(AnthropicContentBlock), 'must be a string or an array of content blocks');
const TextContent = stringOr(v.array(AnthropicTextBlock), 'must be a string or an array of text blocks');

export const AnthropicMessage = indexedVariant(v.variant(
  'role',
  [
    obj({ role: v.literal('user'), content: Content }),
    obj({ role: v.literal('assistant'), content: Content }),
    obj({ role: v.literal('system'), content: TextContent }),
  ],
  'must be "user" or "assistant" (or "system" for a mid-conversation system message)',
));

export const AnthropicCustomTool = obj({
  type: v.nullish(v.literal('custom')),
  name: v.pipe(Str, v.minLength(1, 'must not be empty')),
  description: v.nullish(Str),
  input_schema: obj({ type: v.literal('object', 'must be "object"') }),
  strict: v.nullish(Bool),
  cache_control: Cache,
});

/** Server tools and Anthropic-defined client tools, named by a versioned `type` (web_search_20250305, bash_20250124, …). */
export const AnthropicVersionedTool = obj({ type: otherType(['custom']), name: v.optional(Str) });

export const AnthropicTool = v.variant('type', [AnthropicCustomTool, AnthropicVersionedTool], 'must be a tool definition');

const Parallel = { disable_parallel_tool_use: v.nullish(Bool) };
export const AnthropicToolChoice = indexedVariant(v.variant(
  'type',
  [
    obj({ type: v.literal('auto'), ...Parallel }),
    obj({ type: v.literal('any'), ...Parallel }),
    obj({ type: v.literal('tool'), name: Str, ...Parallel }),
    obj({ type: v.literal('none') }),
  ],
  'must be "auto", "any", "tool" or "none"',
));

// Newer values pass (Claude Code sends "updates" with the thinking-display-updates beta); the reader maps the known ones.
const Display = v.nullish(Str);
export const AnthropicThinking = indexedVariant(v.variant(
  'type',
  [
    obj({ type: v.literal('enabled'), budget_tokens: NonNegInt, display: Display }),
    obj({ type: v.literal('adaptive'), display: Display }),
    obj({ type: v.literal('disabled') }),
    // between_tools and later modes have no IR slot; they travel in source.extra.
    obj({ type: otherType(['enabled', 'adaptive', 'disabled']) }),
  ],
  'must be "enabled", "adaptive" or "disabled"',
));

const JsonSchemaFormat = obj({ type: v.literal('json_schema', 'must be "json_schema"'), schema: JsonObject });

export const AnthropicOutputConfig = optionsObj({
  effort: v.nullish(v.picklist(['low', 'medium', 'high', 'xhigh', 'max'], 'must be "low", "medium", "high", "xhigh" or "max"')),
  format: v.nullish(JsonSchemaFormat),
});

const Common = {
  model: v.pipe(Str, v.minLength(1, 'must not be empty')),
  messages: v.array(AnthropicMessage, 'must be an array of messages'),
  system: v.optional(TextContent),
  tools: v.optional(v.array(AnthropicTool, 'must be an array of tools')),
  tool_choice: v.optional(AnthropicToolChoice),
  thinking: v.optional(AnthropicThinking),
  output_config: v.optional(AnthropicOutputConfig),
  /** Older beta spelling of output_config.format (structured-outputs-2025-11-13). */
  output_format: v.nullish(JsonSchemaFormat),
  cache_control: Cache,
};

export const CountTokensRequest = obj(Common);

export const MessagesRequest = obj({
  ...Common,
  max_tokens: NonNegInt,
  stop_sequences: v.optional(v.array(Str, 'must be an array of strings')),
  stream: v.optional(Bool),
  temperature: v.optional(Num),
  top_p: v.optional(Num),
  top_k: v.optional(NonNegInt),
  metadata: v.optional(optionsObj({ user_id: v.nullish(Str) })),
});

/**
 * What a passthrough call reads of a Messages body: the model to route on, `stream`, and the
 * output cap admission reserves. The rest goes to an upstream of the same family, which checks
 * it itself; the whole schema runs only when a route translates.
 */
export const MessagesHead = head({
  model: Str,
  stream: v.optional(Bool),
  max_tokens: v.optional(NonNegInt),
});

export const CountTokensHead = head({ model: Str });

/**
 * MessagesHead of a body, or its 400. The usual body is checked by hand first: the schema costs
 * ~0.5 µs and a few objects per passthrough call for three fields. Accepted by hand only where
 * the schema accepts (a test holds the two together); anything else goes through the schema, for
 * its exact message.
 */
export function readMessagesHead(json: Record<string, unknown>): v.InferOutput<typeof MessagesHead> {
  const { model, stream, max_tokens } = json;
  if (typeof model === 'string' && (stream === undefined || typeof stream === 'boolean') && (max_tokens === undefined || (Number.isInteger(max_tokens) && (max_tokens as number) >= 0))) {
    return json as v.InferOutput<typeof MessagesHead>;
  }
  return parseWith(MessagesHead, json);
}

/** A head is read, not forwarded: a strict-output object skips copying the body's other fields. */
function head<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  return v.object(entries, (issue) => (issue.expected === 'Object' ? 'must be an object' : 'is required'));
}

export type AnthropicCacheControl = v.InferOutput<typeof AnthropicCacheControl>;
export type AnthropicTextBlock = v.InferOutput<typeof AnthropicTextBlock>;
export type AnthropicImageBlock = v.InferOutput<typeof AnthropicImageBlock>;
export type AnthropicDocumentBlock = v.InferOutput<typeof AnthropicDocumentBlock>;
export type AnthropicToolResultBlock = v.InferOutput<typeof AnthropicToolResultBlock>;
export type AnthropicContentBlock = v.InferOutput<typeof AnthropicContentBlock>;
export type AnthropicMessage = v.InferOutput<typeof AnthropicMessage>;
export type AnthropicTool = v.InferOutput<typeof AnthropicTool>;
export type AnthropicToolChoice = v.InferOutput<typeof AnthropicToolChoice>;
export type AnthropicThinking = v.InferOutput<typeof AnthropicThinking>;
export type CountTokensRequest = v.InferOutput<typeof CountTokensRequest>;
export type MessagesRequest = v.InferOutput<typeof MessagesRequest>;
