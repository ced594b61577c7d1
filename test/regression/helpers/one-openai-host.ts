import { startFakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, type RunningGateway } from '../../helpers/gateway.ts';

export interface OneOpenAIHost {
  /** The OpenAI-compatible host; script it with `host.reply(...)`. */
  host: FakeUpstream;
  gateway: RunningGateway;
  close(): Promise<void>;
}

/** A gateway whose one model `id` routes to `model` on one fake OpenAI-compatible host named `provider`. */
export async function startOneOpenAIHost(provider: string, id: string, model: string): Promise<OneOpenAIHost> {
  const host = await startFakeUpstream();
  const gateway = await startTestGateway(
    testConfig({
      providers: { [provider]: { type: 'openai', baseUrl: `${host.url}/v1`, apiKey: 'sk-up' } },
      models: [{ id, routes: [{ provider, model }] }],
    }),
  );
  return {
    host,
    gateway,
    async close() {
      await gateway.close();
      await host.close();
    },
  };
}
