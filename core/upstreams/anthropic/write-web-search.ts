/**
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool
 * @see https://ai.google.dev/api/caching#GoogleSearch
 */
import { GatewayError } from '../../errors.ts';
import type { ProviderTool } from '../../ir.ts';
import type { AnthropicRawBlock } from './wire-types.ts';

const GOOGLE_SEARCH = new Set(['googleSearch', 'google_search']);
const EXCLUDE_DOMAINS = new Set(['excludeDomains', 'exclude_domains']);

/** Gemini's Google Search grounding tool (what Gemini CLI's web search offers). */
export function isGoogleSearch(tool: ProviderTool): boolean {
  return tool.origin === 'gemini' && GOOGLE_SEARCH.has(tool.name);
}

/**
 * `{googleSearch: {…}}` → Anthropic's web search server tool: both are a search the provider runs
 * inside the call. The oldest dated version, which every Claude model with web search takes.
 * `excludeDomains` is Anthropic's `blocked_domains`; an option Claude's search cannot apply (a
 * time range) is refused rather than widened.
 */
export function writeAnthropicWebSearch(tool: ProviderTool, path: string): AnthropicRawBlock {
  const options = tool.definition[tool.name];
  const out: AnthropicRawBlock = { type: 'web_search_20250305', name: 'web_search' };
  for (const [key, value] of Object.entries(typeof options === 'object' && options !== null ? options : {})) {
    if (EXCLUDE_DOMAINS.has(key) && Array.isArray(value)) {
      if (value.length) out.blocked_domains = value;
      continue;
    }
    const param = `${path}.${tool.name}.${key}`;
    throw new GatewayError('invalid_request', `${param}: Claude's web search has no such option`, { param });
  }
  return out;
}
