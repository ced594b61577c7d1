import type { ChatRequest, DocumentPart, ImagePart, MediaSource, Part, ToolDef } from '../ir.ts';

/*
 * A local input-token estimate for routes whose upstream has no counter. It is deliberately a
 * little high: clients use the count to decide when to compact a conversation, and an estimate
 * that runs low makes them compact too late (the failure users report). Responses say it is an
 * estimate (`x-switchyard-token-count: estimate`).
 */

/** UTF-8 bytes per token: Claude-class tokenizers average ~3.5 on English prose, fewer on code and CJK. */
export const BYTES_PER_TOKEN = 3.2;
/** An image at the providers' size cap (~1.15 megapixels ≈ width × height / 750 tokens on Anthropic). */
export const TOKENS_PER_IMAGE = 1600;
/** A PDF page: its text plus the page image most providers add. */
export const TOKENS_PER_PDF_PAGE = 2000;
/** Fallback page size when a PDF's page objects cannot be counted (compressed object streams). */
const PDF_BYTES_PER_PAGE = 60_000;
/** Role markers and separators around each message. */
const TOKENS_PER_MESSAGE = 4;
/** Per-tool framing, plus the system prompt providers add once when tools are present. */
const TOKENS_PER_TOOL = 10;
const TOKENS_FOR_TOOL_USE = 350;

const encoder = new TextEncoder();

export function estimateInputTokens(req: ChatRequest): number {
  let bytes = 0;
  let tokens = 0;
  for (const part of req.system) bytes += textBytes(part.text);
  // Providers drop thinking from earlier turns; only the latest assistant turn's still counts.
  const lastAssistant = req.messages.findLastIndex((m) => m.role === 'assistant');
  req.messages.forEach((message, m) => {
    tokens += TOKENS_PER_MESSAGE;
    for (const part of message.parts) {
      if (part.type === 'reasoning' && m !== lastAssistant) continue;
      const counted = countPart(part);
      bytes += counted.bytes;
      tokens += counted.tokens;
    }
  });
  if (req.tools?.length) {
    tokens += TOKENS_FOR_TOOL_USE;
    for (const tool of req.tools) {
      tokens += TOKENS_PER_TOOL;
      bytes += toolBytes(tool);
    }
  }
  return tokens + Math.ceil(bytes / BYTES_PER_TOKEN);
}

interface Count {
  bytes: number;
  tokens: number;
}

function countPart(part: Part): Count {
  switch (part.type) {
    case 'text':
      return { bytes: textBytes(part.text), tokens: 0 };
    case 'reasoning':
      return { bytes: textBytes(part.text) + ((part.redacted?.length ?? 0) * 3) / 4, tokens: 0 };
    case 'image':
      return { bytes: 0, tokens: imageTokens(part) };
    case 'document':
      return documentCount(part);
    case 'tool-call':
      return { bytes: textBytes(part.name) + textBytes(JSON.stringify(part.input)), tokens: 0 };
    case 'tool-result': {
      const total: Count = { bytes: 0, tokens: 0 };
      for (const inner of part.content) {
        const counted = countPart(inner);
        total.bytes += counted.bytes;
        total.tokens += counted.tokens;
      }
      return total;
    }
    case 'raw':
      return { bytes: textBytes(JSON.stringify(part.block)), tokens: 0 };
    default: {
      const unknown: never = part;
      throw new Error(`unhandled part ${JSON.stringify(unknown)}`);
    }
  }
}

function imageTokens(_part: ImagePart): number {
  // Dimensions are not read from the bytes: the providers' cap bounds the cost of any image.
  return TOKENS_PER_IMAGE;
}

function documentCount(part: DocumentPart): Count {
  const source = part.source;
  const framing = textBytes(part.title ?? '') + textBytes(part.context ?? '');
  if (source.kind === 'text') return { bytes: framing + textBytes(source.data), tokens: 0 };
  if (source.kind === 'base64' && source.mediaType === 'application/pdf') return { bytes: framing, tokens: pdfPages(source) * TOKENS_PER_PDF_PAGE };
  if (source.kind === 'base64' && source.mediaType.startsWith('text/')) return { bytes: framing + (source.data.length * 3) / 4, tokens: 0 };
  // A URL or file reference: its size is unknown here, so count it as one page.
  return { bytes: framing, tokens: TOKENS_PER_PDF_PAGE };
}

/** Counts `/Type /Page` objects in the PDF; falls back to its size when they are compressed away. */
function pdfPages(source: Extract<MediaSource, { kind: 'base64' }>): number {
  let binary: string;
  try {
    binary = atob(source.data);
  } catch {
    return Math.max(1, Math.ceil((source.data.length * 3) / 4 / PDF_BYTES_PER_PAGE));
  }
  const pages = binary.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  return pages || Math.max(1, Math.ceil(binary.length / PDF_BYTES_PER_PAGE));
}

function toolBytes(tool: ToolDef): number {
  if (tool.type === 'provider') return textBytes(JSON.stringify(tool.definition));
  return textBytes(tool.name) + textBytes(tool.description ?? '') + textBytes(JSON.stringify(tool.inputSchema));
}

function textBytes(text: string): number {
  // ASCII-only text needs no encoding pass; it is the common case and this runs on large prompts.
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.length : encoder.encode(text).length;
}
