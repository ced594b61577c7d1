/**
 * The path of a request URL without parsing it, where parsing would give the same: `new URL`
 * costs ~1 µs and an object per request on Node 20, and nearly every request path is plain. A
 * path a URL parser would rewrite (dot segments, percent escapes, backslashes, characters it
 * escapes) gives undefined, and so does a URL the parser refuses (a broken Host header): the
 * caller then parses, and gets the parser's answer or its error. The query and fragment are not
 * part of the path.
 */
const PLAIN = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;

/**
 * Whether the parser takes each scheme-and-host a server has seen; a server sees a handful, so
 * the parser runs once for each. Bounded, as the Host header is the client's to choose.
 */
const origins = new Map<string, boolean>();
const ORIGINS_LIMIT = 64;

export function readPlainPath(url: string): string | undefined {
  const scheme = url.indexOf('://');
  if (scheme < 0) return undefined;
  const start = url.indexOf('/', scheme + 3);
  if (start < 0 || !isParsedOrigin(url.slice(0, start))) return undefined;
  let end = url.length;
  const query = url.indexOf('?', start);
  if (query >= 0) end = query;
  const hash = url.indexOf('#', start);
  if (hash >= 0 && hash < end) end = hash;
  const path = url.slice(start, end);
  // "." and ".." segments (and their escaped forms, which PLAIN refuses) are resolved by the parser.
  if (!PLAIN.test(path) || path.includes('/.')) return undefined;
  return path;
}

function isParsedOrigin(origin: string): boolean {
  let ok = origins.get(origin);
  if (ok === undefined) {
    ok = URL.canParse(`${origin}/`) && new URL(`${origin}/`).pathname === '/';
    if (origins.size >= ORIGINS_LIMIT) origins.clear();
    origins.set(origin, ok);
  }
  return ok;
}

/**
 * The query of a URL as text, for `new URLSearchParams`, which then reads it as `url.searchParams`
 * would: from the first "?" up to a "#". The "?" is kept: the constructor drops one leading "?",
 * and a query that itself starts with one ("??a") must keep it. Undefined: text only a full
 * parse reads right.
 */
export function readQueryText(url: string): string | undefined {
  const start = url.indexOf('?');
  if (start < 0) return '';
  const hash = url.indexOf('#');
  if (hash >= 0 && hash < start) return '';
  const text = url.slice(start, hash < 0 ? undefined : hash);
  // The parser drops tabs and newlines, trims spaces and controls and escapes what is not ASCII: left to it.
  return NOT_PRINTABLE_ASCII.test(text) ? undefined : text;
}

const NOT_PRINTABLE_ASCII = /[^\u0021-\u007e]/;

/**
 * The first value of `name` in a query's text (as readQueryText gives it), as
 * `new URLSearchParams(text).get(name)` reads it, without building the parameters: on Bun that
 * costs ~0.35 µs, for the one parameter (`alt`) a Gemini stream reads. Undefined where only the
 * parser reads it right: text with an escape or a "+" (a space), which it decodes.
 */
export function readPlainQueryValue(text: string, name: string): string | null | undefined {
  if (text.includes('%') || text.includes('+')) return undefined;
  const length = text.length;
  let at = text.startsWith('?') ? 1 : 0;
  while (at < length) {
    let end = text.indexOf('&', at);
    if (end < 0) end = length;
    let equals = text.indexOf('=', at);
    if (equals < 0 || equals > end) equals = end;
    if (equals - at === name.length && text.startsWith(name, at)) return equals === end ? '' : text.slice(equals + 1, end);
    at = end + 1;
  }
  return null;
}
