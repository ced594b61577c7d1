import type { Socket, SocketHandler } from 'bun';
import type { UpstreamFetch } from '../core/index.ts';
import { createHttp1Fetch, type Http1ClientOptions, type Http1Settings, type Http1Socket, type Http1SocketEvents } from './http1-client.ts';
import { atTurnEnd } from './turn-end.ts';
import type { UpstreamTarget } from './upstream-target.ts';

export type BunUpstreamOptions = Http1ClientOptions;

/**
 * Upstream client for Bun: the adapters' HTTP/1.1 client (http1-client.ts) over `Bun.connect`
 * sockets. Bun's fetch runs its HTTP client on a thread of its own; with the gateway alone on one
 * core, handing each call to that thread and its answer back took ~13% of a passthrough's CPU and
 * ~14 system calls where these sockets make ~4 (docs/performance-rounds.md, twenty-fourth round).
 * They are served by the event loop the handlers run on, and a body's chunks are the buffers Bun
 * reads into, handed on as they are.
 */
export function createBunFetch(options: BunUpstreamOptions = {}): UpstreamFetch {
  // The last TLS session of each origin, offered when the next connection opens (as undici does):
  // a resumed handshake skips the certificate exchange and its verification.
  const sessions = new Map<string, Buffer>();
  return createHttp1Fetch((target, settings, events) => openBunSocket(target, settings, events, sessions), options);
}

/** Data events of a TLS 1.3 connection searched for the server's session ticket before giving up. */
const TICKET_SEARCH_READS = 8;

/**
 * Connects; for https, waits for the handshake and refuses a certificate Bun could not verify
 * before a byte of the request is written (`Bun.connect` resolves before the handshake).
 */
function openBunSocket(target: UpstreamTarget, settings: Http1Settings, events: Http1SocketEvents, sessions: Map<string, Buffer>): Promise<Http1Socket> {
  return new Promise<Http1Socket>((resolve, reject) => {
    let ready = false;
    let failed = false;
    const own = new BunSocket();
    const fail = (err: unknown) => {
      if (ready || failed) return;
      failed = true;
      reject(new Error(`Could not connect to ${target.origin}`, { cause: err }));
    };
    const closed = (error: Error | undefined) => {
      own.dropUnsent();
      if (ready) events.onClose(error);
      else fail(error ?? new Error('Connection closed before it was ready'));
    };
    const start = (socket: Socket<BunSocket>) => {
      if (ready || failed) return;
      ready = true;
      socket.setNoDelay(true);
      own.socket = socket;
      resolve(own);
    };
    const keepSession = (socket: Socket<BunSocket>) => {
      // Typed as void in bun-types; a client socket's session is a Buffer.
      const session = socket.getSession() as unknown as Buffer | undefined;
      if (session) sessions.set(target.origin, session);
    };
    const handler: SocketHandler<BunSocket, 'buffer'> = {
      binaryType: 'buffer',
      data: (_socket, data) => events.onData(data),
      drain: () => own.writeUnsent(),
      timeout: () => events.onIdleTimeout(),
      end: () => closed(undefined),
      close: (_socket, error) => closed(error),
      error: (_socket, error) => closed(error),
      connectError: (_socket, error) => fail(error),
    };
    if (target.tls) {
      // Bun takes a session to offer only here, before the handshake starts.
      handler.open = (socket) => {
        const session = sessions.get(target.origin);
        if (session) socket.setSession(session);
      };
      // TLS 1.3 servers send their tickets after the handshake, so the session worth keeping is
      // the one read once a ticket has come (on the first answer, as a rule); TLS 1.2's is complete now.
      let ticketSearch = 0;
      handler.handshake = (socket, success, error) => {
        if (!success) {
          // A session this origin no longer takes is not offered again.
          sessions.delete(target.origin);
          fail(error ?? new Error('TLS handshake failed'));
          socket.terminate();
          return;
        }
        if (socket.getTLSVersion() === 'TLSv1.3') ticketSearch = TICKET_SEARCH_READS;
        else keepSession(socket);
        start(socket);
      };
      handler.data = (socket, data) => {
        if (ticketSearch > 0) {
          // Without a ticket a TLS 1.3 session cannot be resumed: it must not replace one that can.
          if (!socket.getTLSTicket()) ticketSearch--;
          else {
            ticketSearch = 0;
            keepSession(socket);
          }
        }
        events.onData(data);
      };
    }
    const tls = target.tls ? { serverName: target.hostname, rejectUnauthorized: true, ...(settings.ca ? { ca: settings.ca } : {}) } : undefined;
    Bun.connect<BunSocket>({ hostname: target.hostname, port: target.port, data: own, tls, socket: handler }).then((socket) => {
      if (!target.tls) start(socket);
    }, fail);
  });
}

/**
 * A Bun socket. Writes wait for the turn's end (adapters/turn-end.ts); the socket may then take
 * part of a chunk, and the rest goes on `drain`, in order.
 */
class BunSocket implements Http1Socket {
  socket: Socket<BunSocket> | undefined;
  #unsent: Uint8Array[] = [];
  #closed = false;

  get writing(): boolean {
    return this.#unsent.length > 0;
  }

  write(parts: Uint8Array[]): void {
    if (this.#closed) return;
    const waiting = this.#unsent.length > 0;
    for (const part of parts) this.#unsent.push(part);
    if (!waiting) atTurnEnd(writeUnsentOf, this, undefined);
  }

  busy(): void {
    const socket = this.socket!;
    socket.timeout(0);
    socket.ref();
  }

  idle(ms: number): void {
    const socket = this.socket!;
    socket.timeout(Math.max(1, Math.ceil(ms / 1000)));
    // An idle connection does not keep the process alive (a gateway embedded in a script).
    socket.unref();
  }

  pause(): void {
    this.socket?.pause();
  }

  resume(): void {
    this.socket?.resume();
  }

  destroy(): void {
    this.dropUnsent();
    this.socket?.terminate();
  }

  /** Closed: what was still to be written goes nowhere. */
  dropUnsent(): void {
    this.#closed = true;
    this.#unsent = [];
  }

  /**
   * What waits (for the turn's end or for `drain`) goes out in order, as far as the socket takes
   * it; the part it does not take waits for `drain`.
   */
  writeUnsent(): void {
    const unsent = this.#unsent;
    let sent = 0;
    while (sent < unsent.length) {
      if (this.#closed) return;
      const chunk = unsent[sent]!;
      const written = this.socket!.write(chunk);
      if (written >= 0 && written < chunk.byteLength) {
        unsent[sent] = chunk.subarray(written);
        break;
      }
      sent++;
    }
    // Emptied in place, the usual case: no new array per request.
    if (sent === unsent.length) unsent.length = 0;
    else if (sent > 0) unsent.splice(0, sent);
  }
}

function writeUnsentOf(socket: BunSocket): void {
  socket.writeUnsent();
}
