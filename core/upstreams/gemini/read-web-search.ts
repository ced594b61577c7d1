/**
 * @see https://ai.google.dev/api/generate-content#GroundingMetadata
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool
 */
import type { GeminiGroundingMetadata } from './wire-types.ts';

/** A Google Search Gemini ran, in the terms of Anthropic's web search blocks. */
export interface GeminiWebSearch {
  /** The server_tool_use id (`srvtoolu_…`, Anthropic's pattern) its result block points at. */
  id: string;
  /** The first query Gemini searched for (Anthropic's web_search input has room for one). */
  query: string;
  /** The pages the answer is grounded on, once each, as `web_search_result`s. */
  results: Array<Record<string, unknown>>;
  /** How many queries Gemini ran. */
  requests: number;
}

/**
 * Google Search grounding → a web search. Gemini names the pages as Google's redirect links with
 * the site as title; Anthropic's `encrypted_content` (page text only Claude can read) and
 * `page_age` have nothing to come from, so they are empty. Undefined when nothing was searched.
 */
export function readGeminiWebSearch(meta: GeminiGroundingMetadata | undefined, responseId: string | undefined): GeminiWebSearch | undefined {
  const queries = (meta?.webSearchQueries ?? []).filter((q) => typeof q === 'string' && q !== '');
  const results: Array<Record<string, unknown>> = [];
  const seen = new Set<string>();
  for (const chunk of meta?.groundingChunks ?? []) {
    const web = chunk?.web;
    if (typeof web?.uri !== 'string' || seen.has(web.uri)) continue;
    seen.add(web.uri);
    results.push({ type: 'web_search_result', url: web.uri, title: web.title || web.domain || web.uri, encrypted_content: '', page_age: null });
  }
  if (!queries.length && !results.length) return undefined;
  const id = `srvtoolu_${(responseId ?? '').replace(/[^a-zA-Z0-9_]/g, '_') || 'gemini'}`;
  return { id, query: queries[0] ?? '', results, requests: Math.max(queries.length, 1) };
}

/** The server_tool_use block, its input given whole (a stream sends it as one input_json_delta instead). */
export function webSearchCallBlock(search: GeminiWebSearch, input: Record<string, unknown>): Record<string, unknown> {
  return { type: 'server_tool_use', id: search.id, name: 'web_search', input, caller: { type: 'direct' } };
}

export function webSearchResultBlock(search: GeminiWebSearch): Record<string, unknown> {
  return { type: 'web_search_tool_result', tool_use_id: search.id, content: search.results };
}

/**
 * Grounding that streamed chunks carry: Gemini may send it on any chunk, again with more on a later
 * one, so each field's latest non-empty value is kept.
 */
export function mergeGrounding(into: GeminiGroundingMetadata | undefined, meta: GeminiGroundingMetadata): GeminiGroundingMetadata {
  const merged = Object.assign({}, into);
  if (meta.webSearchQueries?.length) merged.webSearchQueries = meta.webSearchQueries;
  if (meta.groundingChunks?.length) merged.groundingChunks = meta.groundingChunks;
  return merged;
}
