import type { GatewayConfig, ProviderConfig } from '../config.ts';
import { createAnthropicUpstream } from './anthropic/index.ts';
import { createBedrockUpstream } from './bedrock/index.ts';
import { createGeminiUpstream } from './gemini/index.ts';
import { createOpenAIUpstream } from './openai/index.ts';
import type { Upstream } from './types.ts';

/** One Upstream per configured provider, built once at start-up. */
export function createUpstreams(config: GatewayConfig): Map<string, Upstream> {
  const upstreams = new Map<string, Upstream>();
  for (const [name, provider] of Object.entries(config.providers)) upstreams.set(name, createUpstream(name, provider));
  return upstreams;
}

function createUpstream(name: string, provider: ProviderConfig): Upstream {
  switch (provider.type) {
    case 'anthropic':
      return createAnthropicUpstream(name, provider);
    case 'openai':
      return createOpenAIUpstream(name, provider);
    case 'gemini':
      return createGeminiUpstream(name, provider);
    case 'bedrock':
      return createBedrockUpstream(name, provider);
  }
}
