/** Translation warnings → `x-switchyard-warnings`; header values must be single-line Latin-1. */
export function warningHeaders(warnings: readonly string[], headers: Headers = new Headers()): Headers {
  if (warnings.length > 0) headers.set('x-switchyard-warnings', warnings.join('; ').replace(/[^\x20-\x7e]/g, '?'));
  return headers;
}
