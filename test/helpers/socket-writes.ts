import type { ServerResponse } from 'node:http';

/** Calls `onWrite` for each write the response's socket makes (one per `_write` or `_writev`, i.e. per system call batch). */
export function tapSocketWrites(res: ServerResponse, onWrite: () => void): void {
  const socket = res.socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => void>;
  for (const name of ['_write', '_writev'] as const) {
    const original = socket[name].bind(socket);
    socket[name] = (...args) => {
      onWrite();
      original(...args);
    };
  }
}
