/** @see https://ai.google.dev/api/caching#Tool */
import { GatewayError } from '../../errors.ts';
import type { ToolChoice, ToolDef } from '../../ir.ts';
import type { Warn } from '../types.ts';
import { writeGeminiToolSchema } from './write-schema.ts';
import { isAnthropicWebSearch, writeGeminiWebSearch } from './write-web-search.ts';
import type { GeminiFunctionDeclaration, GeminiTool, GeminiToolConfig } from './wire-types.ts';

/** Gemini's function-name rule (letters, digits, `_ . : -`, starting with a letter or `_`, ≤128). */
const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/;

const MODE = { auto: 'AUTO', any: 'ANY', tool: 'ANY', none: 'NONE' } as const;

/**
 * Tools → one functionDeclarations tool (schemas rewritten for Gemini, every change reported per
 * tool) plus Gemini built-ins passed as they came, and Anthropic's web search as Google Search;
 * tool choice → functionCallingConfig.
 */
export function writeGeminiTools(defs: ToolDef[] | undefined, choice: ToolChoice | undefined, warn: Warn): { tools?: GeminiTool[]; toolConfig?: GeminiToolConfig } {
  const declarations: GeminiFunctionDeclaration[] = [];
  const builtIns: GeminiTool[] = [];
  const searches: string[] = [];
  (defs ?? []).forEach((def, k) => {
    if (def.type === 'provider' && isAnthropicWebSearch(def)) {
      // Each is checked; one googleSearch serves them all.
      const search = writeGeminiWebSearch(def, `tools.${k}`, warn);
      if (!searches.length) builtIns.push(search);
      searches.push(def.name);
      return;
    }
    if (def.type === 'provider') {
      if (def.origin !== 'gemini') {
        throw new GatewayError('invalid_request', `tools.${k}: the ${def.origin} tool "${def.name}" cannot be used with a Gemini model`, { param: `tools.${k}` });
      }
      // Either the whole tool object ({googleSearch: {}}) or just its body, named by `name`.
      builtIns.push(def.name in def.definition && Object.keys(def.definition).length === 1 ? def.definition : { [def.name]: def.definition });
      return;
    }
    if (!NAME.test(def.name)) {
      throw new GatewayError('invalid_request', `tools.${k}.name: "${def.name}" is not a valid Gemini function name (letters, digits, "_", ".", ":", "-", starting with a letter or "_", at most 128)`, { param: `tools.${k}.name` });
    }
    const { schema, changes } = writeGeminiToolSchema(def.inputSchema);
    if (changes.length) warn(`tool "${def.name}" schema rewritten for Gemini: ${changes.join('; ')}`);
    declarations.push({ name: def.name, ...(def.description ? { description: def.description } : {}), ...(schema ? { parameters: schema } : {}) });
  });
  const tools = [...(declarations.length ? [{ functionDeclarations: declarations }] : []), ...builtIns];
  return { ...(tools.length ? { tools } : {}), ...writeToolConfig(readSearchChoice(choice, searches, warn), declarations, warn) };
}

/**
 * Google Search is not a function Gemini can be told to call: a choice naming the web search tool
 * (Claude Code's WebSearch names it) leaves the search to the model, which searches when asked to.
 */
function readSearchChoice(choice: ToolChoice | undefined, searches: string[], warn: Warn): ToolChoice | undefined {
  if (choice?.type !== 'tool' || !searches.includes(choice.name)) return choice;
  warn(`tool_choice: Gemini cannot be made to search; "${choice.name}" was offered and the model decides`);
  return { type: 'auto' };
}

function writeToolConfig(choice: ToolChoice | undefined, declarations: GeminiFunctionDeclaration[], warn: Warn): { toolConfig?: GeminiToolConfig } {
  if (!choice || !declarations.length) return {};
  if (choice.type !== 'none' && choice.disableParallel) warn('tool_choice: Gemini cannot disable parallel tool calls; the setting was ignored');
  if (choice.type === 'tool' && !declarations.some((d) => d.name === choice.name)) {
    throw new GatewayError('invalid_request', `tool_choice: no tool named "${choice.name}"`, { param: 'tool_choice' });
  }
  const names = choice.type === 'tool' ? { allowedFunctionNames: [choice.name] } : {};
  return { toolConfig: { functionCallingConfig: { mode: MODE[choice.type], ...names } } };
}
