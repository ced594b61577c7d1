import { JsonTemplate } from '../../http/json-template.ts';
import type { OpenAIChatCompletion } from './types.ts';

/** The delta fields a run of chunks may vary in while everything else stays the same. */
const TEXT_FIELDS = ['content', 'reasoning_content', 'reasoning'] as const;

/**
 * Top-level values that change while the chunks stay the same otherwise: the id and the creation
 * time from one answer to the next, the host's build from one deployment to the next, and
 * OpenAI's random `obfuscation` from chunk to chunk. The reader takes none of them from a chunk
 * read through a template (the id it takes from the stream's first chunk).
 */
const VARYING = ['id', 'created', 'system_fingerprint', 'obfuscation'];

export interface ChunkTemplate {
  template: JsonTemplate<OpenAIChatCompletion>;
  /** The delta field that varies. */
  field: (typeof TEXT_FIELDS)[number];
}

/**
 * A template (see JsonTemplate) of a chunk whose only effect on the chunk reader is its delta's
 * text: one choice, the first, with exactly one of the text fields set and no finish reason, tool
 * calls, refusal, usage or error. `data` is the chunk's text, `chunk` its parse.
 */
export function learnChunkTemplate(data: string, chunk: OpenAIChatCompletion): ChunkTemplate | undefined {
  if (chunk.usage || chunk.x_groq?.usage || chunk.error !== undefined || chunk.choices?.length !== 1) return undefined;
  const choice = chunk.choices[0]!;
  const delta = choice.delta;
  if ((choice.index ?? 0) !== 0 || choice.finish_reason || !delta || delta.tool_calls?.length || typeof delta.refusal === 'string') return undefined;
  let field: (typeof TEXT_FIELDS)[number] | undefined;
  for (const name of TEXT_FIELDS) {
    if (delta[name] === undefined || delta[name] === null) continue;
    if (field !== undefined || typeof delta[name] !== 'string') return undefined;
    field = name;
  }
  // An empty text is the role announcement that opens most streams: the chunks after it differ.
  if (field === undefined || delta[field] === '') return undefined;
  const template = JsonTemplate.learn<OpenAIChatCompletion>(data, field, (parsed) => parsed.choices?.[0]?.delta, VARYING);
  return template && { template, field };
}
