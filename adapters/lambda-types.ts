/**
 * The Lambda shapes the adapter reads and writes, written by hand (only the fields used, plus the
 * ones AWS's sample events carry) so the project needs no @types/aws-lambda.
 * @see https://docs.aws.amazon.com/lambda/latest/dg/services-apigateway.html
 */

type StringMap = Record<string, string | undefined>;
type StringListMap = Record<string, string[] | undefined>;

/** API Gateway REST API, Lambda proxy integration (payload format 1.0). */
export interface LambdaEventV1 {
  version?: '1.0';
  resource: string;
  /** The resource path without the stage; query values and path arrive decoded. */
  path: string;
  httpMethod: string;
  headers: StringMap | null;
  multiValueHeaders?: StringListMap | null;
  queryStringParameters?: StringMap | null;
  multiValueQueryStringParameters?: StringListMap | null;
  pathParameters?: StringMap | null;
  stageVariables?: StringMap | null;
  requestContext: {
    accountId: string;
    apiId: string;
    domainName?: string;
    domainPrefix?: string;
    httpMethod: string;
    path: string;
    protocol?: string;
    requestId: string;
    requestTimeEpoch?: number;
    resourcePath?: string;
    stage: string;
    identity?: { sourceIp?: string; userAgent?: string | null } & Record<string, unknown>;
    [field: string]: unknown;
  };
  body: string | null;
  isBase64Encoded: boolean;
}

/** API Gateway HTTP API and Lambda Function URLs (payload format 2.0). */
export interface LambdaEventV2 {
  version: '2.0';
  routeKey: string;
  /** Includes the stage name for HTTP API stages other than `$default`. */
  rawPath: string;
  rawQueryString: string;
  /** The request's cookies; HTTP API removes the `cookie` header and sends them here. */
  cookies?: string[];
  headers: StringMap;
  queryStringParameters?: StringMap;
  pathParameters?: StringMap;
  stageVariables?: StringMap;
  requestContext: {
    accountId: string;
    apiId: string;
    domainName: string;
    domainPrefix?: string;
    http: { method: string; path: string; protocol: string; sourceIp: string; userAgent: string };
    requestId: string;
    routeKey: string;
    stage: string;
    time?: string;
    timeEpoch?: number;
    [field: string]: unknown;
  };
  body?: string;
  isBase64Encoded: boolean;
}

/**
 * Application Load Balancer target group. With "multi-value headers" turned on, the event carries
 * only the `multiValue*` maps and the result must answer with `multiValueHeaders`. Query values
 * arrive exactly as the client sent them (still percent-encoded).
 */
export interface LambdaEventAlb {
  requestContext: { elb: { targetGroupArn: string } };
  httpMethod: string;
  path: string;
  queryStringParameters?: StringMap;
  multiValueQueryStringParameters?: StringListMap;
  headers?: StringMap;
  multiValueHeaders?: StringListMap;
  body: string | null;
  isBase64Encoded: boolean;
}

export type LambdaHttpEvent = LambdaEventV1 | LambdaEventV2 | LambdaEventAlb;

/** How an event is read and answered. Function URLs use payload 2.0 like HTTP APIs. */
export type LambdaEventFormat = 'v1' | 'v2' | 'alb';

/** Event sources the test helpers can build; `alb-multi` is ALB with multi-value headers on. */
export type LambdaEventKind = 'apigw-v1' | 'apigw-v2' | 'alb' | 'alb-multi' | 'function-url';

export interface LambdaResultV1 {
  statusCode: number;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  body: string;
  isBase64Encoded: boolean;
}

export interface LambdaResultV2 {
  statusCode: number;
  headers?: Record<string, string>;
  cookies?: string[];
  body: string;
  isBase64Encoded: boolean;
}

export interface LambdaResultAlb {
  statusCode: number;
  /** ALB writes this as the status line, e.g. "200 OK". */
  statusDescription: string;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  body: string;
  isBase64Encoded: boolean;
}

export type LambdaResult = LambdaResultV1 | LambdaResultV2 | LambdaResultAlb;

/** @see https://docs.aws.amazon.com/lambda/latest/dg/nodejs-context.html */
export interface LambdaContext {
  functionName: string;
  functionVersion: string;
  invokedFunctionArn: string;
  memoryLimitInMB: string;
  awsRequestId: string;
  logGroupName: string;
  logStreamName: string;
  callbackWaitsForEmptyEventLoop: boolean;
  getRemainingTimeInMillis(): number;
}

/** The part of the Node Writable that Lambda hands a streaming handler which the adapter uses. */
export interface LambdaResponseStream {
  write(chunk: Uint8Array): boolean;
  end(callback?: () => void): unknown;
  once(event: 'drain' | 'close' | 'error', listener: (...args: any[]) => void): unknown;
  on(event: 'error', listener: (...args: any[]) => void): unknown;
  off(event: 'drain' | 'close' | 'error', listener: (...args: any[]) => void): unknown;
  readonly destroyed?: boolean;
}

/** The prelude `awslambda.HttpResponseStream.from` sends before the body. */
export interface LambdaStreamMetadata {
  statusCode: number;
  headers: Record<string, string>;
  cookies: string[];
}

export type LambdaStreamingHandler = (event: LambdaHttpEvent, responseStream: LambdaResponseStream, context?: LambdaContext) => Promise<void>;

/**
 * The `awslambda` global of the Node.js managed runtime.
 * @see https://docs.aws.amazon.com/lambda/latest/dg/config-rs-write-functions.html
 */
export interface AwsLambdaGlobal {
  streamifyResponse(handler: LambdaStreamingHandler): LambdaStreamingHandler;
  HttpResponseStream: { from(stream: LambdaResponseStream, metadata: LambdaStreamMetadata): LambdaResponseStream };
}
