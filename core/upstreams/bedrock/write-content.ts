/** @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html */
import { GatewayError } from '../../errors.ts';
import type { CacheMark, DocumentPart, ImagePart, MediaSource, Part } from '../../ir.ts';

type BedrockSource = { bytes: string } | { s3Location: { uri: string } };
type BedrockCachePoint = { cachePoint: { type: 'default'; ttl?: string } };
type BedrockImage = { image: { format: string; source: BedrockSource } };
type BedrockDocument = {
  document: { format: string; name: string; source: BedrockSource | { text: string }; context?: string; citations?: { enabled: boolean } };
};
type BedrockToolResultContent = { text: string } | BedrockImage | BedrockDocument;

export type BedrockContentBlock =
  | { text: string }
  | BedrockImage
  | BedrockDocument
  | { toolUse: { toolUseId: string; name: string; input: Record<string, unknown> } }
  | { toolResult: { toolUseId: string; content: BedrockToolResultContent[]; status?: 'error' } }
  | { reasoningContent: { reasoningText: { text: string; signature: string } } }
  | BedrockCachePoint;

export interface ContentContext {
  /** Dot path of the part, for error messages. */
  path: string;
  /** Document names already used in this request (Bedrock wants them unique). */
  names: Set<string>;
}

const IMAGE_FORMATS: Record<string, string> = {
  'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp',
};
const DOCUMENT_FORMATS: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

export function writeCachePoint(cache: CacheMark): BedrockCachePoint {
  return { cachePoint: cache.ttl ? { type: 'default', ttl: cache.ttl } : { type: 'default' } };
}

/** One IR part → Converse blocks (a cache mark becomes a cachePoint right after its block). */
export function writeBedrockPart(part: Part, ctx: ContentContext): BedrockContentBlock[] {
  const blocks = writeBlock(part, ctx);
  const cache = 'cache' in part ? part.cache : undefined;
  return cache && blocks.length ? [...blocks, writeCachePoint(cache)] : blocks;
}

function writeBlock(part: Part, ctx: ContentContext): BedrockContentBlock[] {
  switch (part.type) {
    case 'text':
      // Bedrock rejects blank text blocks; they carry nothing.
      return part.text.trim() ? [{ text: part.text }] : [];
    case 'image':
      return [writeImage(part, ctx.path)];
    case 'document':
      return [writeDocument(part, ctx)];
    case 'reasoning':
      // Only Bedrock-signed reasoning may be replayed; unsigned text (gpt-oss) must not be, or it
      // leaks into later answers, and other vendors' signatures cannot be verified here.
      return part.signature?.origin === 'bedrock' && !part.redacted
        ? [{ reasoningContent: { reasoningText: { text: part.text, signature: part.signature.value } } }]
        : [];
    case 'tool-call':
      return [{ toolUse: { toolUseId: part.id, name: part.name, input: part.input } }];
    case 'tool-result': {
      const content = part.content.flatMap((c, k): BedrockToolResultContent[] => {
        const path = `${ctx.path}.content.${k}`;
        if (c.type === 'text') return c.text.trim() ? [{ text: c.text }] : [];
        return [c.type === 'image' ? writeImage(c, path) : writeDocument(c, { ...ctx, path })];
      });
      // An empty tool output is legal elsewhere, but Bedrock rejects an empty text block.
      if (!content.length) content.push({ text: '(empty)' });
      return [{ toolResult: { toolUseId: part.callId, content, ...(part.isError ? { status: 'error' as const } : {}) } }];
    }
    case 'raw':
      if (part.origin === 'bedrock') return [part.block as BedrockContentBlock];
      throw new GatewayError('invalid_request', `${ctx.path}: a "${String(part.block.type ?? 'unknown')}" block from ${part.origin} cannot be sent to Bedrock`, { param: ctx.path });
    default: {
      const never: never = part;
      throw new GatewayError('invalid_request', `${ctx.path}: unsupported part ${JSON.stringify(never)}`);
    }
  }
}

function writeImage(part: ImagePart, path: string): BedrockImage {
  const mediaType = mediaTypeOf(part.source);
  const format = mediaType ? IMAGE_FORMATS[mediaType.toLowerCase()] : undefined;
  if (!format) throw new GatewayError('invalid_request', `${path}: Bedrock accepts png, jpeg, gif or webp images, not "${mediaType ?? 'unknown'}"`, { param: path });
  return { image: { format, source: writeSource(part.source, path, 'an image') } };
}

function writeDocument(part: DocumentPart, ctx: ContentContext): BedrockDocument {
  const mediaType = mediaTypeOf(part.source);
  const format = mediaType ? DOCUMENT_FORMATS[mediaType.toLowerCase()] : undefined;
  if (!format) throw new GatewayError('invalid_request', `${ctx.path}: Bedrock does not accept "${mediaType ?? 'unknown'}" documents`, { param: ctx.path });
  const source = part.source.kind === 'text' ? { text: part.source.data } : writeSource(part.source, ctx.path, 'a document');
  const document: BedrockDocument['document'] = { format, name: documentName(part.title, ctx.names), source };
  if (part.context) document.context = part.context;
  if (part.citations) document.citations = part.citations;
  return { document };
}

function writeSource(source: MediaSource, path: string, what: 'an image' | 'a document'): BedrockSource {
  if (source.kind === 'base64') return { bytes: source.data };
  if (source.kind === 'url' && source.url.startsWith('s3://')) return { s3Location: { uri: source.url } };
  const how = source.kind === 'url' ? 'by URL' : source.kind === 'file' ? 'as a file reference' : 'as text';
  throw new GatewayError('invalid_request', `${path}: Bedrock cannot take ${what} ${how}; send it inline as base64`, { param: path });
}

function mediaTypeOf(source: MediaSource): string | undefined {
  return source.mediaType;
}

/** Names may hold only letters, digits, single spaces, hyphens, parentheses and brackets, and must be unique. */
function documentName(title: string | undefined, used: Set<string>): string {
  const base = (title ?? '').replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 100) || 'document';
  let name = base;
  for (let n = 2; used.has(name); n++) name = `${base} (${n})`;
  used.add(name);
  return name;
}
