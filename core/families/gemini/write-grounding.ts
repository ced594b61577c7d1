/**
 * @see https://ai.google.dev/api/generate-content#GroundingMetadata
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool
 */
import type { Part } from '../../ir.ts';
import { utf8Length } from '../../http/text-bytes.ts';

export interface GeminiGroundingMetadata {
  webSearchQueries?: string[];
  groundingChunks: Array<{ web: { uri: string; title: string } }>;
  groundingSupports?: Array<{ segment: { startIndex?: number; endIndex: number; text: string }; groundingChunkIndices: number[] }>;
}

/**
 * Gathers a Claude web search (its server_tool_use queries, the pages of its results, and the
 * citations on the answer's text) into Gemini's groundingMetadata, which Gemini CLI's web search
 * reads: the pages become its numbered sources, and each cited text block a support whose
 * segment is the block's place, in UTF-8 bytes, in the answer's text parts joined (thoughts
 * excluded, as Gemini's offsets are). Pages go in the order the results and then the citations
 * name them, each once.
 */
export class GroundingWriter {
  readonly #queries: string[] = [];
  readonly #chunks: GeminiGroundingMetadata['groundingChunks'] = [];
  readonly #supports: NonNullable<GeminiGroundingMetadata['groundingSupports']> = [];
  readonly #byUrl = new Map<string, number>();
  #offset = 0;

  /** A server_tool_use or web_search_tool_result block of Anthropic's (anything else is not a search). */
  addBlock(block: Record<string, unknown>): void {
    if (block.type === 'server_tool_use' && block.name === 'web_search') {
      const query = (block.input as { query?: unknown } | undefined)?.query;
      if (typeof query === 'string' && query) this.#queries.push(query);
    } else if (block.type === 'web_search_tool_result' && Array.isArray(block.content)) {
      for (const result of block.content as Array<{ type?: unknown; url?: unknown; title?: unknown }>) {
        if (result?.type === 'web_search_result') this.#page(result.url, result.title);
      }
    }
  }

  /** A text part as the answer writes it, with the citations Claude put on it. */
  addText(text: string, citations: readonly unknown[] | undefined): void {
    const length = utf8Length(text, 0, text.length);
    const indices: number[] = [];
    for (const citation of citations ?? []) {
      const c = citation as { type?: unknown; url?: unknown; title?: unknown };
      if (c?.type !== 'web_search_result_location') continue;
      const index = this.#page(c.url, c.title);
      if (index !== undefined && !indices.includes(index)) indices.push(index);
    }
    if (indices.length && length) {
      const start = this.#offset;
      this.#supports.push({ segment: { ...(start ? { startIndex: start } : {}), endIndex: start + length, text }, groundingChunkIndices: indices });
    }
    this.#offset += length;
  }

  /** The metadata, when a search ran or a page was cited. */
  write(): GeminiGroundingMetadata | undefined {
    if (!this.#queries.length && !this.#chunks.length) return undefined;
    return {
      ...(this.#queries.length ? { webSearchQueries: this.#queries } : {}),
      groundingChunks: this.#chunks,
      ...(this.#supports.length ? { groundingSupports: this.#supports } : {}),
    };
  }

  #page(url: unknown, title: unknown): number | undefined {
    if (typeof url !== 'string' || !url) return undefined;
    let index = this.#byUrl.get(url);
    if (index === undefined) {
      index = this.#chunks.length;
      this.#byUrl.set(url, index);
      this.#chunks.push({ web: { uri: url, title: typeof title === 'string' && title ? title : url } });
    }
    return index;
  }
}

/** An answer's grounding, or undefined when it holds no Claude web search. */
export function writeGeminiGrounding(parts: readonly Part[]): GeminiGroundingMetadata | undefined {
  let writer: GroundingWriter | undefined;
  for (const part of parts) {
    if (part.type === 'raw' && part.origin === 'anthropic') (writer ??= new GroundingWriter()).addBlock(part.block);
  }
  if (!writer) return undefined;
  for (const part of parts) if (part.type === 'text') writer.addText(part.text, part.citations);
  return writer.write();
}
