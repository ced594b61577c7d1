import type { HeadersLike } from '../core/index.ts';
import { lowerAscii } from './ascii-case.ts';

/**
 * A response's header fields, read once from the header section as it came (already checked by
 * Http1ResponseReader): names lower-cased, values without the whitespace around them, in the
 * order sent. A passthrough copies every field and core and the reader ask for a few more, so each
 * line is cut once here rather than again at every lookup: reading nginx's nine-field head and
 * copying it as a passthrough does went from 8.0 to 4.8 µs on Node and from 6.3 to 3.0 on Bun (a
 * micro-benchmark on a slow machine). A map keyed by each answer's own strings had cost the Bun
 * client more than the rest of reading the head.
 */
export class HeaderFields implements HeadersLike {
  /** Lower-cased names, the same string each time for the same name (see readName). */
  readonly names: string[] = [];
  readonly values: string[] = [];
  /** A name came more than once: lookups join its values (as `Headers.get` does). */
  #repeated = false;

  /**
   * `section`: the header lines, each after its CRLF (`\r\nName: value\r\nName: value`), as the
   * reader's expression captures them; empty for an answer without fields.
   */
  constructor(section: string) {
    // Emptied between heads, never within one: its earlier names must keep their marks.
    if (bySpelling.size >= NAMES_LIMIT) {
      bySpelling.clear();
      byLower.clear();
      recentSpellings.length = 0;
      recentNames.length = 0;
    }
    const pass = ++passes;
    const end = section.length;
    let at = 0;
    for (let line = 0; at < end; line++) {
      const start = at + 2;
      let next = section.indexOf('\r\n', start);
      if (next < 0) next = end;
      const colon = section.indexOf(':', start);
      // The name the previous head had on this line, compared in place: no string cut and hashed.
      const recent = recentSpellings[line];
      let name: Name;
      if (recent !== undefined && recent.length === colon - start && section.startsWith(recent, start)) name = recentNames[line]!;
      else {
        const spelling = section.slice(start, colon);
        name = readName(spelling);
        if (line < RECENT_LINES) {
          recentSpellings[line] = spelling;
          recentNames[line] = name;
        }
      }
      if (name.pass === pass) this.#repeated = true;
      name.pass = pass;
      this.names.push(name.lower);
      this.values.push(readFieldValue(section, colon + 1, next));
      at = next;
    }
  }

  /** A header's values joined by `, ` (as `Headers.get` joins them), or null. */
  get(name: string): string | null {
    const want = lowerAscii(name);
    const { names, values } = this;
    if (!this.#repeated) {
      const at = names.indexOf(want);
      return at < 0 ? null : values[at]!;
    }
    let out: string | null = null;
    for (let i = 0; i < names.length; i++) {
      if (names[i] !== want) continue;
      out = out === null ? values[i]! : `${out}, ${values[i]}`;
    }
    return out;
  }

  /** Each name once, lower-cased, with its values joined. */
  forEach(callback: (value: string, name: string) => void): void {
    const { names, values } = this;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (!this.#repeated) callback(values[i]!, name);
      else if (names.indexOf(name) === i) callback(names.lastIndexOf(name) === i ? values[i]! : this.get(name)!, name);
    }
  }
}

/** A header name as sent, lower-cased; `pass` is the last head it was seen in. */
interface Name {
  lower: string;
  pass: number;
}

/**
 * Names kept by spelling as sent and by lower-case form, one entry per lower-case name: an
 * upstream sends the same few names on every answer, and a string seen before is cheaper to hash
 * and to use as a key (the header copy does both) than a new one. The entry also marks which
 * head saw the name last, which finds a repeated name (`Set-Cookie` and `set-cookie` too) without
 * comparing it with the others.
 */
const bySpelling = new Map<string, Name>();
const byLower = new Map<string, Name>();
const NAMES_LIMIT = 512;
let passes = 0;

/**
 * The last head's names by line: an upstream sends its fields in the same order answer after
 * answer, so a line usually starts with the name the same line had before.
 */
const recentSpellings: string[] = [];
const recentNames: Name[] = [];
const RECENT_LINES = 64;

function readName(spelling: string): Name {
  let name = bySpelling.get(spelling);
  if (name === undefined) {
    const lower = spelling.toLowerCase();
    name = byLower.get(lower);
    if (name === undefined) {
      name = { lower, pass: 0 };
      byLower.set(lower, name);
    }
    bySpelling.set(spelling, name);
  }
  return name;
}

/** A field value without the optional whitespace (SP, HTAB) around it. */
function readFieldValue(section: string, from: number, to: number): string {
  let start = from;
  let end = to;
  while (start < end && (section.charCodeAt(start) === 32 || section.charCodeAt(start) === 9)) start++;
  while (end > start && (section.charCodeAt(end - 1) === 32 || section.charCodeAt(end - 1) === 9)) end--;
  return section.slice(start, end);
}
