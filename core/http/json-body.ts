import { GatewayError } from '../errors.ts';
import { OPEN_BRACKET } from './json-chars.ts';
import type { JsonScan, ScannedMember } from './json-scan.ts';
import { replaceBytes, spliceTopLevel, spliceTopLevelBytes } from './json-splice.ts';
import { readTextBytes } from './text-bytes.ts';

/**
 * Above this size a body is scanned rather than parsed (see parseJsonBody), and a parsed one lets
 * its object go when a passthrough takes it (see release).
 */
export const KEEP_OBJECT_BYTES = 64 * 1024;

/** Up to this length an ASCII body is spliced as text (see spliceMember); past ~16 K it was slower on Node. */
const SPLICE_AS_TEXT_CHARS = 8 * 1024;

const decoder = new TextDecoder();

/**
 * A client's JSON body: the bytes as received, and the text and object they decode and parse to,
 * each made when first asked for. A coding agent's 100K-token request parses into megabytes of
 * objects, which a passthrough (it sends the bytes) does not need: such a body arrives scanned
 * (json-scan.ts), holding its top-level members' places and its head; the text and object are
 * made only for a route that translates or a writer that must re-serialise. A small body is
 * parsed at once, as every route reads it.
 */
export class JsonBody {
  #bytes: Uint8Array | undefined;
  #text: string | undefined;
  #object: Record<string, unknown> | undefined;
  #head: Record<string, unknown>;
  /** A scanned body's members, and the marker its scan looked for. */
  #scan: JsonScan | undefined = undefined;
  #marker = '';

  constructor(bytes: Uint8Array, text: string | undefined, object: Record<string, unknown> | undefined) {
    this.#bytes = bytes;
    this.#text = text;
    this.#object = object;
    this.#head = object ?? {};
  }

  /** The bytes as received. */
  get bytes(): Uint8Array {
    if (this.#bytes === undefined) throw new GatewayError('internal', 'The request body was read after it was let go');
    return this.#bytes;
  }

  /** A body that `scanJsonObject(bytes, marker)` accepted: its head is read from the scan. */
  static fromScan(bytes: Uint8Array, scan: JsonScan, marker: string): JsonBody {
    const body = new JsonBody(bytes, undefined, undefined);
    body.#scan = scan;
    body.#marker = marker;
    body.#head = readHead(bytes, scan.members);
    return body;
  }

  /** The body as text (decoded again if it was let go). */
  get text(): string {
    this.#text ??= decoder.decode(this.bytes);
    return this.#text;
  }

  /** The parsed object (parsed again if it was let go). */
  get object(): Record<string, unknown> {
    this.#object ??= JSON.parse(this.text) as Record<string, unknown>;
    return this.#object;
  }

  /**
   * The top-level members other than arrays (`model`, `stream`, `max_tokens`,
   * `generationConfig`…), without a parse of the rest: the whole object while it is kept.
   */
  get head(): Record<string, unknown> {
    return this.#head;
  }

  /** The bytes when they are exactly the text's UTF-8 (no byte-order mark, nothing repaired). */
  get exactBytes(): Uint8Array | undefined {
    const scan = this.#scan;
    return scan ? this.bytes.subarray(scan.from) : readTextBytes(this.bytes, this.text);
  }

  /**
   * Whether a string in the body may start with `prefix` (ASCII): false only where none does.
   * Answered from the scan when it looked for this marker.
   */
  mayHoldString(prefix: string): boolean {
    if (this.#scan && prefix === this.#marker) return this.#scan.marked;
    return this.text.includes(quoted(prefix));
  }

  /**
   * The body with the value of its one top-level member `key` (ASCII letters) replaced by `json`
   * and every other byte kept: the exact bytes where there are some, else the text. Undefined
   * when `key` is missing or repeated (JSON.parse keeps the last; the caller serialises instead).
   */
  spliceMember(key: string, json: string): Uint8Array | string | undefined {
    const scan = this.#scan;
    if (scan) return spliceScanned(this.bytes, scan, key, json);
    const { text } = this;
    // The parse found `key` at the top level: the splice may take its shortcut.
    const present = Object.hasOwn(this.#head, key);
    const exact = readTextBytes(this.bytes, text);
    // A short ASCII body is spliced as text, which the upstream client encodes once into the
    // request's own buffer; spliced bytes are copied into an array of their own first (a ~1 KB
    // body: ~5.0 against ~3.1 µs on Node 20, ~2.3 against ~2.0 on Bun). Longer or with other
    // characters, the text costs more to flatten and encode than the bytes to copy.
    const shortAscii = exact !== undefined && text.length === exact.byteLength && text.length <= SPLICE_AS_TEXT_CHARS;
    return exact && !shortAscii ? spliceTopLevelBytes(exact, text, key, json, present) : spliceTopLevel(text, key, json, present);
  }

  /**
   * Lets a large body's object go (and a scanned body's text): a passthrough sends the bytes. Its
   * objects, kept for the whole upstream call, outlived young-generation collections and were
   * copied and promoted (on Node 20, a quarter of the CPU of such a passthrough). The head stays.
   */
  release(): void {
    if (this.#bytes === undefined) return;
    if (this.bytes.byteLength <= KEEP_OBJECT_BYTES) return;
    if (this.#scan) this.#text = undefined;
    const object = this.#object;
    if (object === undefined) return;
    if (this.#head === object) {
      const head: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(object)) {
        // `__proto__` would set the copy's prototype rather than a member.
        if (key !== '__proto__' && !Array.isArray(value)) head[key] = value;
      }
      this.#head = head;
    }
    this.#object = undefined;
  }

  /**
   * Lets everything go, the bytes too, once nothing will read the body again (a passthrough's
   * last route, its request written). Held until the upstream answered, a 400 KB prompt outlived
   * young-generation collections; on Bun, 64 such calls in flight took the peak RSS from ~125 to
   * ~250 MiB. Reading the body afterwards is a bug, and throws.
   */
  drop(): void {
    this.#bytes = undefined;
    this.#text = undefined;
    this.#object = undefined;
    this.#scan = undefined;
  }
}

let lastPrefix = '';
let lastQuoted = '"';

/** `"prefix`, made once for the prefix every call asks about, not per request. */
function quoted(prefix: string): string {
  if (prefix !== lastPrefix) {
    lastPrefix = prefix;
    lastQuoted = `"${prefix}`;
  }
  return lastQuoted;
}

/** The members other than arrays, parsed; the last of a repeated key wins, as in JSON.parse. */
function readHead(bytes: Uint8Array, members: ScannedMember[]): Record<string, unknown> {
  const head: Record<string, unknown> = {};
  for (const { key, start, end, kind } of members) {
    if (key === '__proto__') continue;
    if (kind === OPEN_BRACKET) delete head[key];
    else head[key] = JSON.parse(decoder.decode(bytes.subarray(start, end)));
  }
  return head;
}

function spliceScanned(bytes: Uint8Array, scan: JsonScan, key: string, json: string): Uint8Array | undefined {
  let found: ScannedMember | undefined;
  for (const member of scan.members) {
    if (member.key !== key) continue;
    if (found) return undefined;
    found = member;
  }
  if (!found) return undefined;
  return replaceBytes(bytes, scan.from, found.start, found.end, json);
}
