/** @see https://ai.google.dev/api/generate-content#request-body */
import * as v from 'valibot';
import { jsonObject, notArray, parseWith } from '../../validate.ts';

/**
 * Request schemas of the Gemini-style front door. Objects are loose: newer SDKs add top-level
 * fields (`labels`, `serviceTier`, `store`, …) and part flags, and those must survive for the
 * same-family passthrough. Only what the translator reads is typed. Enum values are accepted in
 * any case (the SDK upper-cases, the docs show lower case).
 */

const Str = v.string();
const Int = v.pipe(v.number(), v.integer());
const Obj = jsonObject('must be a JSON object');
const upper = <const T extends readonly string[]>(values: T, message: string) =>
  v.pipe(v.string(), v.toUpperCase(), v.picklist(values, message));

/** A loose object whose fields are all optional: an array is refused, not read as `{}`. */
const optionsObj = <const TEntries extends v.ObjectEntries>(entries: TEntries) => notArray(v.looseObject(entries));

const Blob = v.looseObject({ mimeType: Str, data: Str });
const FileData = v.looseObject({ mimeType: v.optional(Str), fileUri: Str, displayName: v.optional(Str) });

const FunctionCall = v.looseObject({ id: v.optional(Str), name: Str, args: v.optional(Obj) });

/** Media parts a function may return alongside its JSON (Gemini 3). */
const FunctionResponsePart = optionsObj({ inlineData: v.optional(Blob), fileData: v.optional(FileData) });

const FunctionResponse = v.looseObject({
  id: v.optional(Str),
  name: Str,
  response: v.optional(Obj),
  parts: v.optional(v.array(FunctionResponsePart)),
  willContinue: v.optional(v.boolean()),
});

export const GeminiPart = optionsObj({
  text: v.optional(Str),
  inlineData: v.optional(Blob),
  fileData: v.optional(FileData),
  functionCall: v.optional(FunctionCall),
  functionResponse: v.optional(FunctionResponse),
  executableCode: v.optional(v.looseObject({ language: v.optional(Str), code: Str })),
  codeExecutionResult: v.optional(optionsObj({ outcome: v.optional(Str), output: v.optional(Str) })),
  thought: v.optional(v.boolean()),
  thoughtSignature: v.optional(Str),
});

export const GeminiContent = v.looseObject({
  // `function` is the legacy role of function results; it counts as `user`.
  role: v.optional(v.picklist(['user', 'model', 'function'], 'must be "user" or "model"')),
  parts: v.array(GeminiPart),
});

/** `systemInstruction`: a Content whose role is ignored, or a bare string. */
const SystemInstruction = v.union([Str, v.looseObject({ role: v.optional(Str), parts: v.array(GeminiPart) })]);

const FunctionDeclaration = v.looseObject({
  name: v.pipe(Str, v.minLength(1, 'must not be empty')),
  description: v.optional(Str),
  /** OpenAPI-subset Schema (upper-case types). */
  parameters: v.optional(Obj),
  /** Real JSON Schema; mutually exclusive with `parameters`. */
  parametersJsonSchema: v.optional(Obj),
});

/** One tool object holds one kind: declarations or a built-in (`googleSearch`, `codeExecution`, …). */
const Tool = optionsObj({ functionDeclarations: v.optional(v.array(FunctionDeclaration)) });

const ToolConfig = optionsObj({
  functionCallingConfig: v.optional(
    optionsObj({
      mode: v.optional(upper(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'], 'must be AUTO, ANY, NONE or VALIDATED')),
      allowedFunctionNames: v.optional(v.array(Str)),
    }),
  ),
});

const ThinkingConfig = optionsObj({
  thinkingBudget: v.optional(v.pipe(Int, v.minValue(-1, 'must be -1, 0 or a positive token count'))),
  includeThoughts: v.optional(v.boolean()),
  thinkingLevel: v.optional(
    v.pipe(v.string(), v.toLowerCase(), v.picklist(['thinking_level_unspecified', 'minimal', 'low', 'medium', 'high'], 'must be MINIMAL, LOW, MEDIUM or HIGH')),
  ),
});

const GenerationConfigEntries = {
  temperature: v.optional(v.number()),
  topP: v.optional(v.number()),
  topK: v.optional(v.number()),
  candidateCount: v.optional(Int),
  maxOutputTokens: v.optional(v.pipe(Int, v.minValue(1, 'must be at least 1'))),
  stopSequences: v.optional(v.array(Str)),
  presencePenalty: v.optional(v.number()),
  frequencyPenalty: v.optional(v.number()),
  seed: v.optional(Int),
  responseMimeType: v.optional(Str),
  responseSchema: v.optional(Obj),
  responseJsonSchema: v.optional(Obj),
  responseModalities: v.optional(v.array(Str)),
  responseLogprobs: v.optional(v.boolean()),
  logprobs: v.optional(Int),
  thinkingConfig: v.optional(ThinkingConfig),
};
const GenerationConfig = optionsObj(GenerationConfigEntries);

const SafetySetting = v.looseObject({ category: Str, threshold: Str });

const requestEntries = {
  contents: v.array(GeminiContent),
  systemInstruction: v.optional(SystemInstruction),
  tools: v.optional(v.array(Tool)),
  toolConfig: v.optional(ToolConfig),
  generationConfig: v.optional(GenerationConfig),
  safetySettings: v.optional(v.array(SafetySetting)),
  cachedContent: v.optional(Str),
};

export const GeminiGenerateContentRequest = v.looseObject({
  ...requestEntries,
  contents: v.pipe(v.array(GeminiContent), v.minLength(1, 'must not be empty')),
});

/**
 * What a passthrough call reads of a generateContent body: the output cap admission reserves.
 * The rest goes to a Gemini upstream, which checks it itself; the whole schema runs only when a
 * route translates.
 */
export const GeminiGenerateContentHead = v.object({
  // Objects, not loose ones: a head is read, not forwarded, so the body's other fields are not copied.
  generationConfig: v.optional(notArray(v.object({ maxOutputTokens: GenerationConfigEntries.maxOutputTokens }))),
});

/**
 * GeminiGenerateContentHead of a body, or its 400: checked by hand first where the schema would
 * accept (see readMessagesHead in the Anthropic schema), else through the schema.
 */
export function readGenerateContentHead(json: Record<string, unknown>): v.InferOutput<typeof GeminiGenerateContentHead> {
  const config = json.generationConfig as { maxOutputTokens?: unknown } | null | undefined;
  if (config === undefined) return json as v.InferOutput<typeof GeminiGenerateContentHead>;
  if (typeof config === 'object' && config !== null && !Array.isArray(config)) {
    const max = config.maxOutputTokens;
    if (max === undefined || (Number.isInteger(max) && (max as number) >= 1)) return json as v.InferOutput<typeof GeminiGenerateContentHead>;
  }
  return parseWith(GeminiGenerateContentHead, json);
}

/** `{contents}` (what the SDK sends) or a whole `{generateContentRequest}`. */
export const GeminiCountTokensRequest = v.pipe(
  v.looseObject({
    contents: v.optional(v.array(GeminiContent)),
    generateContentRequest: v.optional(v.looseObject({ ...requestEntries, model: v.optional(Str) })),
  }),
  v.check((body) => body.contents !== undefined || body.generateContentRequest !== undefined, 'needs "contents" or "generateContentRequest"'),
);

export type GeminiPart = v.InferOutput<typeof GeminiPart>;
export type GeminiContent = v.InferOutput<typeof GeminiContent>;
export type GeminiGenerateContentRequest = v.InferOutput<typeof GeminiGenerateContentRequest>;
export type GeminiCountTokensRequest = v.InferOutput<typeof GeminiCountTokensRequest>;
export type GeminiFunctionDeclaration = v.InferOutput<typeof FunctionDeclaration>;
export type GeminiTool = v.InferOutput<typeof Tool>;
export type GeminiGenerationConfig = v.InferOutput<typeof GenerationConfig>;
