/** @see https://ai.google.dev/api/caching#Content */
import { GatewayError } from '../../errors.ts';
import type { Message } from '../../ir.ts';
import type { Warn } from '../types.ts';
import { writeGeminiMedia } from './write-media.ts';
import { writeGeminiRawPart } from './write-raw-part.ts';
import { writeGeminiToolResult } from './write-tool-result.ts';
import type { GeminiPart } from './wire-types.ts';

/**
 * A user (or mid-conversation system) message → user parts. Function responses come first, in
 * call order, then the media the tools returned, then the rest, so parallel results stay together
 * as Gemini expects.
 */
export function writeGeminiUserParts(message: Message, path: string, callNames: Map<string, string>, warn: Warn): { parts: GeminiPart[]; droppedReasoning: number } {
  const responses: GeminiPart[] = [];
  const media: GeminiPart[] = [];
  const rest: GeminiPart[] = [];
  let droppedReasoning = 0;
  const prefix = message.role === 'system' ? '[system] ' : '';
  message.parts.forEach((part, j) => {
    const at = `${path}.parts.${j}`;
    switch (part.type) {
      case 'text':
        if (part.text) rest.push({ text: prefix + part.text });
        break;
      case 'image':
      case 'document':
        rest.push(writeGeminiMedia(part, at, warn));
        break;
      case 'tool-result': {
        const result = writeGeminiToolResult(part, at, callNames, warn);
        responses.push(result.response);
        media.push(...result.media);
        break;
      }
      case 'raw':
        rest.push(writeGeminiRawPart(part, at));
        break;
      case 'reasoning':
        droppedReasoning++;
        break;
      case 'tool-call':
        throw new GatewayError('invalid_request', `${at}: a tool call cannot be part of a ${message.role} message`, { param: at });
      default:
        part satisfies never;
    }
  });
  return { parts: [...responses, ...media, ...rest], droppedReasoning };
}
