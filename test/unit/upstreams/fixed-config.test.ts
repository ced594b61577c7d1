import { describe, expect, it } from 'vitest';
import { readFixedConfig } from '../../../core/upstreams/fixed-config.ts';
import { anthropicUrl, writeAnthropicHeaders } from '../../../core/upstreams/anthropic/write-headers.ts';
import type { AnthropicConfig } from '../../../core/upstreams/anthropic/wire-types.ts';

describe('readFixedConfig', () => {
  it('strips the base URL\'s trailing slashes and lower-cases the extra headers, once per configuration', () => {
    const config = { baseUrl: 'https://proxy.example/anthropic//', headers: { 'X-Team': 'a', 'anthropic-beta': 'b' } };
    const fixed = readFixedConfig(config);
    expect(fixed).toEqual({ base: 'https://proxy.example/anthropic', headers: [['x-team', 'a'], ['anthropic-beta', 'b']] });
    expect(readFixedConfig(config)).toBe(fixed);
    // Another configuration object, even an equal one, gets its own.
    expect(readFixedConfig({ ...config, baseUrl: 'http://h' }).base).toBe('http://h');
    expect(readFixedConfig({ baseUrl: 'http://h/' }).headers).toEqual([]);
  });

  it('is what the Anthropic writers send: the operator\'s headers last, overriding ours', () => {
    const config = { baseUrl: 'https://api.example/', apiKey: 'sk', version: '2023-06-01', headers: { 'X-Api-Key': 'operator' } } as unknown as AnthropicConfig;
    expect(anthropicUrl(config, '/v1/messages')).toBe('https://api.example/v1/messages');
    expect(writeAnthropicHeaders(config, '2023-06-01')).toEqual({ 'content-type': 'application/json', 'x-api-key': 'operator', 'anthropic-version': '2023-06-01' });
  });
});

describe('readFixedConfig without a base URL', () => {
  it('gives Bedrock (its URL comes from the region) its lower-cased headers and an empty base', () => {
    expect(readFixedConfig({ headers: { 'X-Amzn-Bedrock-Trace': 'ENABLED' } })).toEqual({ base: '', headers: [['x-amzn-bedrock-trace', 'ENABLED']] });
  });
});
