/** @see https://ai.google.dev/gemini-api/docs/function-calling */
import { GatewayError } from '../../errors.ts';
import type { FunctionTool, ToolChoice, ToolDef } from '../../ir.ts';
import type { Warn } from '../../upstreams/types.ts';
import { readGeminiParameters } from './read-schema.ts';
import type { GeminiGenerateContentRequest, GeminiTool } from './schema.ts';

type ToolConfig = GeminiGenerateContentRequest['toolConfig'];

/**
 * `tools` + `toolConfig` → IR tools and tool choice. Built-ins (`googleSearch`, `codeExecution`,
 * `urlContext`, …) become Gemini provider tools, which only a Gemini upstream accepts.
 */
export function readGeminiTools(tools: readonly GeminiTool[] | undefined, config: ToolConfig, warn: Warn): { tools?: ToolDef[]; toolChoice?: ToolChoice } {
  let defs: ToolDef[] = [];
  (tools ?? []).forEach((tool, i) => {
    for (const [key, value] of Object.entries(tool)) {
      if (key !== 'functionDeclarations') {
        defs.push({ type: 'provider', origin: 'gemini', name: key, definition: { [key]: value } });
        continue;
      }
      tool.functionDeclarations!.forEach((decl, j) => {
        if (decl.parameters && decl.parametersJsonSchema) {
          const param = `tools.${i}.functionDeclarations.${j}`;
          throw new GatewayError('invalid_request', `${param}: set "parameters" or "parametersJsonSchema", not both`, { param });
        }
        defs.push({
          type: 'function',
          name: decl.name,
          ...(decl.description !== undefined && { description: decl.description }),
          inputSchema: decl.parametersJsonSchema ?? readGeminiParameters(decl.parameters),
        });
      });
    }
  });

  const fcc = config?.functionCallingConfig;
  const mode = fcc?.mode === 'MODE_UNSPECIFIED' ? undefined : fcc?.mode;
  const names = fcc?.allowedFunctionNames ?? [];
  let toolChoice: ToolChoice | undefined;
  if (mode === 'NONE') toolChoice = { type: 'none' };
  else if (mode === 'AUTO') toolChoice = { type: 'auto' };
  else if (mode === 'ANY' || mode === 'VALIDATED') {
    const declared = new Set(defs.filter((d): d is FunctionTool => d.type === 'function').map((d) => d.name));
    names.forEach((name, k) => {
      if (!declared.has(name)) {
        const param = `toolConfig.functionCallingConfig.allowedFunctionNames.${k}`;
        throw new GatewayError('invalid_request', `${param}: no function named "${name}" is declared in tools`, { param });
      }
    });
    if (mode === 'VALIDATED') warn('toolConfig.functionCallingConfig.mode VALIDATED sent as AUTO: calls are not schema-constrained');
    if (mode === 'ANY' && names.length === 1) toolChoice = { type: 'tool', name: names[0]! };
    else {
      toolChoice = { type: mode === 'ANY' ? 'any' : 'auto' };
      const kept = names.length > 0 ? defs.filter((d) => d.type !== 'function' || names.includes(d.name)) : defs;
      if (kept.length < defs.length) warn('toolConfig.functionCallingConfig.allowedFunctionNames: only the allowed functions were sent as tools');
      defs = kept;
    }
  }
  return { ...(defs.length > 0 && { tools: defs }), ...(toolChoice && { toolChoice }) };
}
