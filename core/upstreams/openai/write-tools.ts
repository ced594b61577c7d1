/** @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools */
import { GatewayError } from '../../errors.ts';
import type { ToolChoice, ToolDef } from '../../ir.ts';
import type { OpenAITool, OpenAIToolChoice } from './types.ts';

export function writeOpenAITools(tools: ToolDef[], name: string): OpenAITool[] {
  return tools.map((tool, i) => {
    if (tool.type === 'provider') {
      throw new GatewayError('invalid_request', `tools: "${tool.name}" is a server tool of ${tool.origin} and cannot be used with OpenAI-compatible host "${name}"`, {
        param: `tools.${i}`,
      });
    }
    // Hosts differ on a missing `parameters`; an explicit empty object schema works everywhere.
    const parameters = tool.inputSchema && Object.keys(tool.inputSchema).length ? tool.inputSchema : { type: 'object', properties: {} };
    return {
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description !== undefined && { description: tool.description }),
        parameters,
        ...(tool.strict !== undefined && { strict: tool.strict }),
      },
    };
  });
}

export interface OpenAIToolChoiceFields {
  tool_choice?: OpenAIToolChoice;
  parallel_tool_calls?: false;
}

export function writeOpenAIToolChoice(choice: ToolChoice | undefined): OpenAIToolChoiceFields {
  if (!choice) return {};
  const out: OpenAIToolChoiceFields = {};
  switch (choice.type) {
    case 'auto':
      out.tool_choice = 'auto';
      break;
    case 'any':
      out.tool_choice = 'required';
      break;
    case 'none':
      return { tool_choice: 'none' };
    case 'tool':
      out.tool_choice = { type: 'function', function: { name: choice.name } };
      break;
  }
  if (choice.disableParallel) out.parallel_tool_calls = false;
  return out;
}
