import { expect } from 'vitest';
import { chunkFrame, eventFrame } from '../helpers/bedrock-frames.ts';
import { type BedrockCall, type FakeBedrock, startFakeBedrock } from '../helpers/fake-bedrock.ts';
import { startTestGateway, testConfig, type RunningGateway } from '../helpers/gateway.ts';
import { loadJsonFixture } from '../helpers/streams.ts';

/**
 * Setup shared by the Bedrock contract tests (bedrock-sdk.test.ts, bedrock-sdk-genai.test.ts): a
 * fake Bedrock that checks every SigV4 signature, and a gateway with Claude on InvokeModel (SigV4
 * with a session token) and gpt-oss on Converse (Bedrock API key).
 */

/** Temporary credentials as a Lambda execution role gets them. */
export const AWS = {
  accessKeyId: 'ASIAQ3EGUXLAMBDA7K2B',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzLambdaKEY',
  sessionToken: 'IQoJb3JpZ2luX2VjEHoaCXVzLWVhc3QtMSJHMEUCIQDfakeLambdaSessionToken+/==',
};
export const BEDROCK_API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1mYWtlLWtleQ==';
export const CLAUDE_ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
export const OSS_ID = 'openai.gpt-oss-120b-1:0';
export const CLAUDE = 'acme.claude-sonnet-4-5';
export const OSS = 'acme.gpt-oss-120b';

export interface BedrockContract {
  fake: FakeBedrock;
  gateway: RunningGateway;
  close(): Promise<void>;
}

export async function startBedrockContract(): Promise<BedrockContract> {
  const fake = await startFakeBedrock({ region: 'us-east-1', ...AWS, apiKey: BEDROCK_API_KEY });
  const gateway = await startTestGateway(
    testConfig({
      providers: {
        aws: { type: 'bedrock', region: 'us-east-1', baseUrl: fake.url, ...AWS },
        'aws-key': { type: 'bedrock', region: 'us-east-1', baseUrl: fake.url, apiKey: BEDROCK_API_KEY },
      },
      models: [
        { id: 'claude-sonnet-4-5', created: 1759104000, routes: [{ provider: 'aws', model: CLAUDE_ID }] },
        { id: 'gpt-oss-120b', created: 1754352000, routes: [{ provider: 'aws-key', model: OSS_ID }] },
      ],
    }),
  );
  return {
    fake,
    gateway,
    async close() {
      await gateway.close();
      await fake.close();
    },
  };
}

/** Forgets the calls and refusals the fake recorded. */
export function clearCalls(fake: FakeBedrock): void {
  fake.calls.length = 0;
  fake.rejected.length = 0;
}

/** A reply handler answering with the JSON fixture `contract/<name>`. */
export const json = (name: string) => () => ({ json: loadJsonFixture(`contract/${name}`) });
/** InvokeModelWithResponseStream frames of the Anthropic events in `contract/<name>`. */
export const invokeFrames = (name: string): Uint8Array[] => loadJsonFixture<unknown[]>(`contract/${name}`).map((event) => chunkFrame(event));
/** ConverseStream frames of the `[type, payload]` pairs in `contract/<name>`. */
export const converseFrames = (name: string): Uint8Array[] => loadJsonFixture<Array<[string, unknown]>>(`contract/${name}`).map(([type, payload]) => eventFrame(type, payload));

/** Asserts that the fake saw exactly one call, and returns it. */
export function onlyCall(fake: FakeBedrock): BedrockCall {
  expect(fake.calls).toHaveLength(1);
  return fake.calls[0]!;
}
