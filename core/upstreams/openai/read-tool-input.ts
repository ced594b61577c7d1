/** @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices */

/**
 * Tool-call `arguments` are a JSON string the model wrote. Empty means no arguments; anything
 * that is not a JSON object is kept verbatim under `_raw` rather than lost.
 */
export function readOpenAIToolInput(args: string | null | undefined): Record<string, unknown> {
  if (!args || !args.trim()) return {};
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Falls through to _raw.
  }
  return { _raw: args };
}
