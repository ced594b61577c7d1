import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The files under `path` (itself, if it is a file) whose names end with `suffix`, walking every
 * folder but those named in `skip`: what the source scans (core purity, fast properties, spread
 * literals) and the Markdown link check read.
 */
export function listFiles(path: string, suffix: string, skip: ReadonlySet<string> = new Set()): string[] {
  if (!statSync(path).isDirectory()) return path.endsWith(suffix) ? [path] : [];
  return readdirSync(path).flatMap((name) => (skip.has(name) ? [] : listFiles(join(path, name), suffix, skip)));
}
