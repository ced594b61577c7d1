import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe } from 'vitest';
import { lambdaResultToResponse, requestToLambdaEvent } from '../../adapters/lambda-event.ts';
import type { LambdaEventKind } from '../../adapters/lambda-types.ts';
import { createLambdaHandlers, selectLambdaUpstream, type LambdaHandlers } from '../../adapters/lambda.ts';
import { writeNodeResponse } from '../../adapters/node-io.ts';
import { NodeRequest } from '../../adapters/node-request.ts';
import { createGateway } from '../../core/index.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { lambdaContext, RecordedResponseStream, stubAwsLambda } from './lambda-stub.ts';
import { openRuntimeStorage, runtimeConfig, runtimeSuite } from './suite.ts';

// Before createLambdaHandlers runs, so streamHandler is wrapped as on Lambda.
stubAwsLambda();

type Transport = LambdaEventKind | 'function-url-stream';

/**
 * An HTTP server standing in for API Gateway / ALB / the Function URL service: each request
 * becomes the event that source would send, the handler runs, and its result (or response
 * stream) becomes the HTTP answer. The shared suite then runs unchanged against it.
 */
function serveThroughLambda(handlers: LambdaHandlers, transport: Transport): Promise<Server> {
  const server = createServer(async (req, res) => {
    try {
      const request = new NodeRequest(req, res).toRequest();
      if (transport !== 'function-url-stream') {
        const result = await handlers.handler(await requestToLambdaEvent(request, transport), lambdaContext());
        await writeNodeResponse(lambdaResultToResponse(result), res);
        return;
      }
      const stream = new RecordedResponseStream({
        metadata: ({ statusCode, headers, cookies }) => {
          res.writeHead(statusCode, cookies.length ? { ...headers, 'set-cookie': cookies } : headers);
          res.flushHeaders();
        },
        write: (chunk, done) => (res.write(chunk) ? done() : res.once('drain', done)),
        end: () => res.end(),
      });
      // The Function URL service drops the response stream when its client goes away.
      res.once('close', () => {
        if (!res.writableFinished) stream.destroy();
      });
      await handlers.streamHandler(await requestToLambdaEvent(request, 'function-url'), stream, lambdaContext());
    } catch (err) {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let upstream: FakeUpstream;
let handlers: LambdaHandlers;
let storage: Awaited<ReturnType<typeof openRuntimeStorage>>;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const config = runtimeConfig(upstream.url);
  // Usage kept in memory across invocations, as one warm Lambda instance keeps it.
  storage = await openRuntimeStorage(config);
  // The upstream client startLambdaGateway gives the gateway (the sockets client).
  handlers = createLambdaHandlers(createGateway(config, { log: () => {}, fetch: selectLambdaUpstream({}), ...storage.options }));
});

afterAll(async () => {
  await storage?.close();
  await upstream?.close();
});

const transports: Array<[Transport, boolean]> = [
  ['apigw-v1', true],
  ['apigw-v2', true],
  ['alb', true],
  ['alb-multi', true],
  ['function-url', true],
  ['function-url-stream', false],
];

for (const [transport, buffered] of transports) {
  describe(`lambda ${transport}`, () => {
    let server: Server;
    beforeAll(async () => {
      server = await serveThroughLambda(handlers, transport);
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const baseUrl = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    runtimeSuite(`lambda ${transport}${buffered ? ' (buffered)' : ''}`, baseUrl, { upstream: () => upstream, buffered, records: true });
  });
}
