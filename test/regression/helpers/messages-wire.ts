import { TEST_KEY } from '../../helpers/gateway.ts';

/** One SSE event of the Claude-style (Messages) stream, its data parsed. */
export interface WireEvent {
  event: string;
  data: any;
}

/** Headers the Anthropic SDKs send. */
export const MESSAGES_HEADERS: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };

/** POSTs `body` as JSON to the gateway's Claude-style Messages route. */
export function postMessages(gatewayUrl: string, body: unknown, headers: Record<string, string> = MESSAGES_HEADERS): Promise<Response> {
  return fetch(`${gatewayUrl}/api/anthropic/v1/messages`, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** Splits a Messages stream into its events; throws on an event without an `event:` or `data:` line. */
export function parseSse(text: string): WireEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block);
      const data = /^data: (.*)$/m.exec(block);
      if (!event || !data) throw new Error(`SSE event without event: or data: line: ${JSON.stringify(block)}`);
      return { event: event[1]!, data: JSON.parse(data[1]!) };
    });
}
