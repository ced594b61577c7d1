import process from 'node:process';
import { writeAccessLogLine, type AccessLogEntry } from '../core/index.ts';

/** Past this many entries waiting, they are written at once (~64 KiB of lines). */
const MAX_PENDING = 256;

/**
 * How long an entry waits for others before the lines go out. Once per event-loop turn, as
 * before, cost a timer and a write for every one or two requests at low concurrency, where turns
 * are short: at 8 connections the access log was ~13% of the CPU per request on Bun, and
 * waiting 1–20 ms instead measured 0.91–0.94 of it on Bun and 0.93 on Node (same-build pairs;
 * docs/performance-rounds.md, forty-first round). At 64 connections a turn already holds ~16.
 */
export const LOG_FLUSH_MS = 5;

/**
 * Access-log sink for the server adapters: entries are kept as they come and turned into lines
 * at most `flushMs` after the first of them waited (or every MAX_PENDING), in one loop and one
 * write. A request only pushes its entry; serialising a burst of them together runs warm, where
 * a line made by each request ran with that request's cold caches (the whole access log measured
 * ~10% of a Node passthrough under load, several times what its line costs in a loop).
 * `flush()` writes what is waiting, on shutdown. `writeLine`: how an entry becomes its line
 * (writeAccessLogLine, or writeAccessLogLineNative on Bun).
 */
export function createLogWriter(
  write: (text: string) => void = (text) => void process.stdout.write(text),
  writeLine: (entry: AccessLogEntry) => string = writeAccessLogLine,
  flushMs = LOG_FLUSH_MS,
): {
  log: (entry: AccessLogEntry) => void;
  flush: () => void;
} {
  let pending: AccessLogEntry[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending.length === 0) return;
    const entries = pending;
    pending = [];
    let text = '';
    for (const entry of entries) text += `${writeLine(entry)}\n`;
    write(text);
  };
  return {
    log(entry) {
      pending.push(entry);
      if (pending.length >= MAX_PENDING) flush();
      else timer ??= setTimeout(flush, flushMs);
    },
    flush,
  };
}

/**
 * The line writeAccessLogLine makes, from the engine's own serialiser. On Bun it is the cheaper
 * of the two: JavaScriptCore writes a plain object's JSON into one flat string, where the
 * template's pieces are joined as ropes that the write then flattens, and each escape test is a
 * regular expression run: ~0.6 against ~1.2 µs per line in a loop over 32-entry batches, and 0.991
 * of the JSON passthrough's CPU per request in same-build pairs (`npm run bench:ab -- --runtime
 * bun`; docs/performance-rounds.md, fortieth round). On V8 the template wins.
 */
export function writeAccessLogLineNative(entry: AccessLogEntry): string {
  return JSON.stringify(entry);
}
