import process from 'node:process';
import type { AccessLogEntry } from '../core/index.ts';

/**
 * Access-log sink for the server adapters: lines are buffered and written once per event-loop
 * turn (or at 64 KiB), so logging costs one write per burst of requests instead of a synchronous
 * console call per request. `flush()` empties the buffer on shutdown.
 */
export function createLogWriter(write: (text: string) => void = (text) => void process.stdout.write(text)): {
  log: (entry: AccessLogEntry) => void;
  flush: () => void;
} {
  let buffer = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!buffer) return;
    const text = buffer;
    buffer = '';
    write(text);
  };
  return {
    log(entry) {
      buffer += `${JSON.stringify(entry)}\n`;
      if (buffer.length > 65_536) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
