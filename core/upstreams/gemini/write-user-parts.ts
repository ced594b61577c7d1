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
  const results: Array<{ callId: string; response: GeminiPart; media: GeminiPart[] }> = [];
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
        results.push({ callId: part.callId, ...writeGeminiToolResult(part, at, callNames, warn) });
        break;
      }
      case 'raw': {
        const raw = writeGeminiRawPart(part, at, warn);
        if (raw) rest.push(raw);
        break;
      }
      case 'reasoning':
        droppedReasoning++;
        break;
      case 'tool-call':
        throw new GatewayError('invalid_request', `${at}: a tool call cannot be part of a ${message.role} message`, { param: at });
      default:
        part satisfies never;
    }
  });
  // Most user turns hold no tool results: their parts are the rest as it is.
  if (results.length === 0) return { parts: rest, droppedReasoning };
  const ordered = inCallOrder(results, callNames);
  return { parts: [...ordered.map((r) => r.response), ...ordered.flatMap((r) => r.media), ...rest], droppedReasoning };
}

/**
 * Clients answer parallel calls in the order the tools finished (Claude Code does), but Gemini
 * pairs responses that carry no id (2.5 and older) with the calls by position: out of order, the
 * model would read one tool's output as another's. `callNames` is filled in conversation order.
 */
function inCallOrder<T extends { callId: string }>(results: T[], callNames: Map<string, string>): T[] {
  if (results.length < 2) return results;
  const rank = new Map<string, number>();
  let k = 0;
  for (const id of callNames.keys()) rank.set(id, k++);
  // Array.prototype.sort is stable: results whose call is unknown keep their place at the end.
  return [...results].sort((a, b) => (rank.get(a.callId) ?? k) - (rank.get(b.callId) ?? k));
}
