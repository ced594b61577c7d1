import { Writable } from 'node:stream';
import { vi } from 'vitest';
import type { AwsLambdaGlobal, LambdaContext, LambdaStreamMetadata } from '../../adapters/lambda-types.ts';

/** Where a recorded response stream forwards what it gets (e.g. a node:http response). */
export interface StreamSink {
  metadata?(metadata: LambdaStreamMetadata): void;
  write?(chunk: Uint8Array, done: () => void): void;
  end?(): void;
}

/**
 * Stands in for the response stream Lambda hands a streaming handler: a Node Writable that
 * records the prelude metadata and the arrival time of every chunk.
 */
export class RecordedResponseStream extends Writable {
  metadata?: LambdaStreamMetadata;
  readonly chunks: Array<{ at: number; bytes: Uint8Array }> = [];

  constructor(private readonly sink: StreamSink = {}, highWaterMark?: number) {
    super(highWaterMark === undefined ? {} : { highWaterMark });
  }

  receiveMetadata(metadata: LambdaStreamMetadata): void {
    this.metadata = metadata;
    this.sink.metadata?.(metadata);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push({ at: Date.now(), bytes: new Uint8Array(chunk) });
    if (this.sink.write) this.sink.write(chunk, () => callback());
    else callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.sink.end?.();
    callback();
  }

  text(): string {
    return Buffer.concat(this.chunks.map((c) => c.bytes)).toString('utf8');
  }
}

/**
 * Installs a stand-in `awslambda` global (as hono's runtime-tests/lambda/stream-mock.ts does):
 * `streamifyResponse` returns the handler and marks it, `HttpResponseStream.from` hands the
 * metadata to the recording stream instead of writing Lambda's binary prelude.
 */
export function stubAwsLambda(): AwsLambdaGlobal {
  const awslambda: AwsLambdaGlobal = {
    streamifyResponse: (handler) => Object.assign(handler, { streamified: true }),
    HttpResponseStream: {
      from(stream, metadata) {
        (stream as RecordedResponseStream).receiveMetadata(metadata);
        return stream;
      },
    },
  };
  vi.stubGlobal('awslambda', awslambda);
  return awslambda;
}

export function lambdaContext(): LambdaContext {
  const id = crypto.randomUUID();
  return {
    functionName: 'switchyard',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:switchyard',
    memoryLimitInMB: '512',
    awsRequestId: id,
    logGroupName: '/aws/lambda/switchyard',
    logStreamName: `2025/03/04/[$LATEST]${id.replace(/-/g, '')}`,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 30_000,
  };
}
