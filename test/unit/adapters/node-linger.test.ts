import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { writeNodeReply } from '../../../adapters/node-io.ts';
import { Reply } from '../../../core/index.ts';

/**
 * A client that keeps sending its upload after the server answered without reading it (a 413):
 * the server must not reset the connection under it, or a client still writing loses the answer.
 * Half-open on the client side, so only the server decides when the connection ends.
 */
function uploadPastTheAnswer(port: number): Promise<{ status: string; answeredAt: number; failedAt?: number; closedAt: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let status = '';
    let answeredAt = 0;
    let failedAt: number | undefined;
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write('POST /upload HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
      const piece = `400\r\n${'x'.repeat(1024)}\r\n`;
      const timer = setInterval(() => socket.writable && socket.write(piece), 2);
      socket.once('close', () => {
        clearInterval(timer);
        resolve({ status, answeredAt, failedAt, closedAt: Date.now() - started });
      });
    });
    socket.on('data', (data: Buffer) => {
      if (!status) {
        status = data.toString('latin1').split('\r\n')[0]!;
        answeredAt = Date.now() - started;
      }
    });
    socket.on('error', () => (failedAt ??= Date.now() - started));
  });
}

describe('an answer written before the upload was read (node:http)', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('closes lingering: reads and drops the rest for a while instead of resetting, then closes', async () => {
    server = createServer((req, res) => {
      // Answer once the first bytes of the body are in, leaving the rest unread, as a 413 does.
      req.once('readable', () => void writeNodeReply(new Reply(413, { 'content-type': 'text/plain' }, 'too large'), res, req));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const { status, answeredAt, failedAt, closedAt } = await uploadPastTheAnswer(port);
    expect(status).toBe('HTTP/1.1 413 Payload Too Large');
    // Without the linger the socket is destroyed with unread data right after the answer: the
    // client's next writes fail within milliseconds.
    expect(failedAt === undefined || failedAt - answeredAt >= 500).toBe(true);
    // ...and it does end: the server closes once its linger time is over.
    expect(closedAt - answeredAt).toBeLessThan(3_000);
  });
});
