/** Names every HTTP/1.1 answer may carry, whoever wrote it. */
const FRAMING = new Set(['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding']);

/** An answer's header names, sorted, without the framing ones: what the gateway chose to send. */
export function readAnswerHeaderNames(headers: Headers | Record<string, string>): string[] {
  const names = headers instanceof Headers ? [...headers.keys()] : Object.keys(headers);
  return names.filter((name) => !FRAMING.has(name)).sort();
}
