import { describe, expect, it } from 'vitest';
import { TemplateCache } from '../../../core/http/template-cache.ts';

describe('TemplateCache', () => {
  it('keeps the last template per model', () => {
    const cache = new TemplateCache<string>();
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 'one');
    cache.set('b', 'two');
    cache.set('a', 'three');
    expect([cache.get('a'), cache.get('b')]).toEqual(['three', 'two']);
  });

  it('keeps 64 models, dropping the one learned longest ago', () => {
    const cache = new TemplateCache<number>();
    for (let i = 0; i < 64; i++) cache.set(`m${i}`, i);
    cache.set('m0', 100);
    cache.set('m64', 64);
    expect(cache.get('m0')).toBe(100);
    expect(cache.get('m1')).toBeUndefined();
    expect(cache.get('m64')).toBe(64);
    expect(cache.get('m63')).toBe(63);
  });
});
