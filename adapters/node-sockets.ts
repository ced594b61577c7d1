import { Buffer } from 'node:buffer';
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls, createSecureContext, type SecureContext, type TLSSocket } from 'node:tls';
import type { UpstreamFetch } from '../core/index.ts';
import { createHttp1Fetch, type Http1ClientOptions, type Http1Settings, type Http1Socket, type Http1SocketEvents } from './http1-client.ts';
import { atTurnEnd } from './turn-end.ts';
import type { UpstreamTarget } from './upstream-target.ts';

/**
 * Upstream client for Node: the adapters' HTTP/1.1 client (http1-client.ts) over `node:net` and
 * `node:tls` sockets. undici's pool does per call what this client does in fewer steps (its
 * dispatcher chain, request object, header arrays and wasm parser callbacks), and its socket reads
 * go through a Node stream: side by side, each alone on the core, the passthroughs took ~0.9 of
 * the CPU per request on these sockets (docs/performance-rounds.md, twenty-ninth round).
 * `SWITCHYARD_UPSTREAM_CLIENT=undici` gives undici's pool instead (node-upstream.ts).
 */
export function createNodeSocketFetch(options: Http1ClientOptions = {}): UpstreamFetch {
  // The last TLS session of each origin, offered when the next connection opens (as undici does):
  // the handshake then skips the certificate exchange.
  const sessions = new Map<string, Buffer>();
  // One secure context for all the client's connections: tls.connect given `ca` (or nothing)
  // builds one per connection, ~0.4-0.5 ms of CPU of a ~2 ms handshake on loopback.
  let context: SecureContext | undefined;
  const tls: NodeTls = { sessions, context: () => (context ??= createSecureContext(options.ca ? { ca: options.ca } : {})) };
  const open = (target: UpstreamTarget, _settings: Http1Settings, events: Http1SocketEvents) => openNodeSocket(target, events, tls);
  return createHttp1Fetch(open, options, true);
}

/** What a client's TLS connections share: the last session of each origin, and one secure context. */
interface NodeTls {
  sessions: Map<string, Buffer>;
  context(): SecureContext;
}

/**
 * Every socket reads into this one buffer (Node's `onread`), bypassing the socket's stream: a
 * read's bytes are parsed before the next read, and a body's chunks are copied out at their own
 * size (createHttp1Fetch's `copyBody`), so a quiet stream holds no read buffer of its own.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

function openNodeSocket(target: UpstreamTarget, events: Http1SocketEvents, tls: NodeTls): Promise<Http1Socket> {
  return new Promise<Http1Socket>((resolve, reject) => {
    let ready = false;
    let failed = false;
    let error: Error | undefined;
    const onread = {
      buffer: READ_BUFFER,
      callback: (size: number) => {
        if (ready) events.onData(READ_BUFFER.subarray(0, size));
        return true;
      },
    };
    const socket: Socket | TLSSocket = target.tls
      ? connectTls({
          host: target.hostname,
          port: target.port,
          // SNI takes a name, not an address.
          servername: isIP(target.hostname) ? undefined : target.hostname,
          secureContext: tls.context(),
          session: tls.sessions.get(target.origin),
          onread,
        } as Parameters<typeof connectTls>[0])
      : connectTcp({ host: target.hostname, port: target.port, onread });
    const fail = (err: unknown) => {
      if (ready || failed) return;
      failed = true;
      socket.destroy();
      reject(new Error(`Could not connect to ${target.origin}`, { cause: err }));
    };
    // 'secureConnect' comes only once the certificate has been verified against `ca` or Node's roots.
    socket.once(target.tls ? 'secureConnect' : 'connect', () => {
      if (failed) return;
      ready = true;
      socket.setNoDelay(true);
      resolve(new NodeSocket(socket));
    });
    if (target.tls) socket.on('session', (session: Buffer) => tls.sessions.set(target.origin, session));
    socket.on('timeout', () => events.onIdleTimeout());
    // 'close' follows an error; the error is what the connection is told.
    socket.on('error', (err: Error) => {
      error = err;
      fail(err);
    });
    socket.on('end', () => (ready ? events.onClose(undefined) : fail(new Error('Connection closed before it was ready'))));
    socket.on('close', () => (ready ? events.onClose(error) : fail(error ?? new Error('Connection closed before it was ready'))));
  });
}

/** A node:net socket whose writes wait for the turn's end (adapters/turn-end.ts). */
class NodeSocket implements Http1Socket {
  #socket: Socket;
  #timed = false;
  #unsent: Uint8Array[] | undefined;

  constructor(socket: Socket) {
    this.#socket = socket;
  }

  get writing(): boolean {
    return this.#unsent !== undefined || this.#socket.writableLength > 0;
  }

  write(parts: Uint8Array[]): void {
    const unsent = this.#unsent;
    // A new array when one is already waiting: `parts` is the caller's (kept to send again).
    if (unsent) {
      this.#unsent = unsent.concat(parts);
      return;
    }
    this.#unsent = parts;
    atTurnEnd(writeUnsentOf, this, undefined);
  }

  writeUnsent(): void {
    const parts = this.#unsent;
    this.#unsent = undefined;
    const socket = this.#socket;
    if (!parts || socket.destroyed) return;
    if (parts.length === 1) {
      socket.write(parts[0]!);
      return;
    }
    // One writev for a head and the large body after it.
    socket.cork();
    for (const part of parts) socket.write(part);
    socket.uncork();
  }

  busy(): void {
    const socket = this.#socket;
    socket.ref();
    if (this.#timed) {
      this.#timed = false;
      socket.setTimeout(0);
    }
  }

  idle(ms: number): void {
    const socket = this.#socket;
    this.#timed = true;
    socket.setTimeout(ms);
    // An idle connection does not keep the process alive (a gateway embedded in a script).
    socket.unref();
  }

  pause(): void {
    this.#socket.pause();
  }

  resume(): void {
    this.#socket.resume();
  }

  destroy(): void {
    this.#unsent = undefined;
    this.#socket.destroy();
  }
}

function writeUnsentOf(socket: NodeSocket): void {
  socket.writeUnsent();
}
