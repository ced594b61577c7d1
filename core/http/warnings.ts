import type { ReplyHeaders } from './reply.ts';

/** Header carrying what a translation changed or dropped, so a client can see it without logs. */
export const WARNINGS_HEADER = 'x-switchyard-warnings';

/** Long tool lists (Claude Code sends ~20 tools) could otherwise grow it past proxies' header limits. */
const MAX_LENGTH = 4000;

/** Sets the warnings header (single-line Latin-1, as header values must be) when there are any. */
export function writeWarnings(warnings: readonly string[], headers: ReplyHeaders = {}): ReplyHeaders {
  if (warnings.length === 0) return headers;
  const text = warnings.join('; ').replace(/[^\x20-\x7e]/g, '?');
  headers[WARNINGS_HEADER] = text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH - 10)} (more)` : text;
  return headers;
}
