/** @see https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use */
import { GatewayError } from '../../errors.ts';
import type { ToolChoice, ToolDef, UpstreamKind } from '../../ir.ts';
import { writeCacheControl } from './write-content.ts';
import type { AnthropicFunctionTool, AnthropicRawBlock, AnthropicToolChoice } from './wire-types.ts';
import { isGoogleSearch, writeAnthropicWebSearch } from './write-web-search.ts';

/**
 * Function tools → Anthropic custom tools. Provider tools (web_search_20250305, bash_20250124, …)
 * are Anthropic's own definitions and go as they are; Gemini's Google Search is the Claude API's
 * web search (not Bedrock's: `origin` 'bedrock' refuses it); any other provider's cannot be
 * expressed and is refused rather than silently dropped.
 */
export function writeAnthropicTools(tools: ToolDef[], origin: UpstreamKind): Array<AnthropicFunctionTool | AnthropicRawBlock> {
  return tools.map((tool, i) => {
    if (tool.type === 'provider') {
      if (tool.origin === 'anthropic' || tool.origin === origin) return tool.definition;
      if (origin === 'anthropic' && isGoogleSearch(tool)) return writeAnthropicWebSearch(tool, `tools.${i}`);
      throw new GatewayError('invalid_request', `tools.${i}: the ${tool.origin} tool "${tool.name}" is not available on an Anthropic upstream`, {
        param: `tools.${i}`,
      });
    }
    // Anthropic requires an object schema; a parameterless function often arrives as {}.
    const schema = tool.inputSchema.type === undefined ? { type: 'object', ...tool.inputSchema } : tool.inputSchema;
    const out: AnthropicFunctionTool = { name: tool.name, input_schema: schema };
    if (tool.description) out.description = tool.description;
    if (tool.strict !== undefined) out.strict = tool.strict;
    return { ...out, ...writeCacheControl(tool.cache) };
  });
}

export function writeAnthropicToolChoice(choice: ToolChoice): AnthropicToolChoice {
  const parallel = choice.type !== 'none' && choice.disableParallel !== undefined ? { disable_parallel_tool_use: choice.disableParallel } : {};
  switch (choice.type) {
    case 'auto':
    case 'any':
      return { type: choice.type, ...parallel };
    case 'tool':
      return { type: 'tool', name: choice.name, ...parallel };
    case 'none':
      return { type: 'none' };
  }
}
