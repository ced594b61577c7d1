import type { GatewayConfigInput } from '../../../core/index.ts';
import { FAKE_CREDENTIALS, startFakeBedrock, type BedrockHandler, type FakeBedrock } from '../../helpers/fake-bedrock.ts';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, type RunningGateway } from '../../helpers/gateway.ts';

type Providers = GatewayConfigInput['providers'];

export interface FourUpstreamsOptions {
  /** Handlers of the fakes; a fake without one answers 404 (or Bedrock's "No reply scripted"). */
  claude?: FakeHandler;
  oss?: FakeHandler;
  google?: FakeHandler;
  aws?: BedrockHandler;
  /** Fields added to (or replacing) a provider's config by name; a new name adds a provider. */
  providers?: Record<string, Record<string, unknown>>;
  models: GatewayConfigInput['models'];
}

/** One fake of each upstream kind behind one gateway, as providers `claude`, `oss`, `google` and `aws`. */
export interface FourUpstreams {
  /** Anthropic. */
  claude: FakeUpstream;
  /** OpenAI-compatible. */
  oss: FakeUpstream;
  /** Gemini. */
  google: FakeUpstream;
  /** Bedrock. */
  aws: FakeBedrock;
  gateway: RunningGateway;
  /** Forgets what the fakes recorded so far. */
  clearRecords(): void;
  close(): Promise<void>;
}

export async function startFourUpstreams(opts: FourUpstreamsOptions): Promise<FourUpstreams> {
  const [claude, oss, google, aws] = await Promise.all([
    startFakeUpstream(opts.claude),
    startFakeUpstream(opts.oss),
    startFakeUpstream(opts.google),
    startFakeBedrock(opts.aws ? { handler: opts.aws } : {}),
  ]);
  const providers: Record<string, Record<string, unknown>> = {
    claude: { type: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant' },
    oss: { type: 'openai', baseUrl: `${oss.url}/v1`, apiKey: 'sk-oss' },
    google: { type: 'gemini', baseUrl: google.url, apiKey: 'g-key' },
    aws: { type: 'bedrock', region: aws.region, baseUrl: aws.url, ...FAKE_CREDENTIALS },
  };
  for (const [name, fields] of Object.entries(opts.providers ?? {})) providers[name] = { ...providers[name], ...fields };
  const gateway = await startTestGateway(testConfig({ providers: providers as Providers, models: opts.models }));
  return {
    claude,
    oss,
    google,
    aws,
    gateway,
    clearRecords() {
      claude.requests.length = 0;
      oss.requests.length = 0;
      google.requests.length = 0;
      aws.calls.length = 0;
    },
    async close() {
      await gateway.close();
      await Promise.all([claude.close(), oss.close(), google.close(), aws.close()]);
    },
  };
}
