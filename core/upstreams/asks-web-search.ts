import type { ToolDef } from '../ir.ts';

const WEB_SEARCH_TYPE = /^web_search_\d{8}$/;

/** Anthropic's web search server tool (any dated version: web_search_20250305, …). */
export function isAnthropicWebSearch(def: ToolDef): boolean {
  return def.type === 'provider' && def.origin === 'anthropic' && typeof def.definition.type === 'string' && WEB_SEARCH_TYPE.test(def.definition.type);
}

/**
 * Whether the client asked for Anthropic's web search, which a Gemini model runs as Google Search:
 * its reader then writes the grounding back as Anthropic's web search blocks.
 */
export function asksAnthropicWebSearch(defs: ToolDef[] | undefined): boolean {
  return defs !== undefined && defs.some(isAnthropicWebSearch);
}
