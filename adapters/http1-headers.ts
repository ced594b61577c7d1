import type { HeadersLike } from '../core/index.ts';

/**
 * A response's header lines as read (`Name: value`, already checked by Http1ResponseReader), looked
 * up without first building a map: core asks for a few names, and a map keyed by each answer's own
 * strings cost the Bun client more than the rest of reading the head.
 */
export class HeaderLines implements HeadersLike {
  #lines: string[];

  constructor(lines: string[]) {
    this.#lines = lines;
  }

  /** A header's values joined by `, ` (as `Headers.get` joins them), or null. */
  get(name: string): string | null {
    const want = name.toLowerCase();
    const size = want.length;
    let out: string | null = null;
    for (const line of this.#lines) {
      if (line.charCodeAt(size) !== 58 || readLowerName(line.slice(0, size)) !== want) continue;
      const value = readFieldValue(line, size + 1);
      out = out === null ? value : `${out}, ${value}`;
    }
    return out;
  }

  /** Each name once, lower-cased, with its values joined. */
  forEach(callback: (value: string, name: string) => void): void {
    const lines = this.#lines;
    const names: string[] = [];
    for (const line of lines) names.push(readLowerName(line.slice(0, line.indexOf(':'))));
    for (let i = 0; i < lines.length; i++) {
      const name = names[i]!;
      if (names.indexOf(name) !== i) continue;
      callback(names.lastIndexOf(name) === i ? readFieldValue(lines[i]!, name.length + 1) : this.get(name)!, name);
    }
  }
}

/**
 * Lower-cased names, kept: an upstream sends the same few names on every answer, and a string
 * seen before is cheaper to hash and to use as a key (the header copy does both) than a new one.
 */
const lowerNames = new Map<string, string>();
const LOWER_NAMES_LIMIT = 512;

function readLowerName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (lowerNames.size >= LOWER_NAMES_LIMIT) lowerNames.clear();
    lowerNames.set(name, lower);
  }
  return lower;
}

/** A field value without the optional whitespace (SP, HTAB) around it. */
function readFieldValue(line: string, from: number): string {
  let start = from;
  let end = line.length;
  while (start < end && (line.charCodeAt(start) === 32 || line.charCodeAt(start) === 9)) start++;
  while (end > start && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
  return line.slice(start, end);
}
