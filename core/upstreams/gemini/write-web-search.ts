/**
 * @see https://ai.google.dev/gemini-api/docs/google-search
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool
 */
import { GatewayError } from '../../errors.ts';
import type { ProviderTool, ToolDef } from '../../ir.ts';
import type { Warn } from '../types.ts';
import type { GeminiTool } from './wire-types.ts';

const WEB_SEARCH_TYPE = /^web_search_\d{8}$/;

/** Anthropic's web search server tool (any dated version: web_search_20250305, …). */
export function isAnthropicWebSearch(def: ToolDef): boolean {
  return def.type === 'provider' && def.origin === 'anthropic' && typeof def.definition.type === 'string' && WEB_SEARCH_TYPE.test(def.definition.type);
}

/** Whether the client asked for Anthropic's web search: the answer's grounding then goes back as its blocks. */
export function asksAnthropicWebSearch(defs: ToolDef[] | undefined): boolean {
  return defs !== undefined && defs.some(isAnthropicWebSearch);
}

/**
 * Anthropic `web_search_*` → `{googleSearch: {}}`: both are a search the provider runs itself in the
 * same call. A domain filter Google Search cannot apply is refused rather than silently widened;
 * the cap on searches and the user's location have no Gemini field and only shape the search.
 */
export function writeGeminiWebSearch(def: ProviderTool, path: string, warn: Warn): GeminiTool {
  const d = def.definition;
  for (const field of ['allowed_domains', 'blocked_domains']) {
    const value = d[field];
    if (Array.isArray(value) && value.length) {
      throw new GatewayError('invalid_request', `${path}.${field}: a Gemini model searches with Google Search, which cannot be limited by domain`, { param: `${path}.${field}` });
    }
  }
  if (d.max_uses !== undefined) warn(`${path}.max_uses: Gemini decides how many searches to run; the limit was not sent`);
  if (d.user_location !== undefined) warn(`${path}.user_location: Gemini's Google Search takes no location; it was not sent`);
  return { googleSearch: {} };
}
