import { describe, expect, it } from 'vitest';
import { readPlainPath, readPlainQueryValue, readQueryText } from '../../../core/http/request-url.ts';
import { seededInts } from '../../helpers/seeded.ts';

/** What the parser says: the path, or undefined where it refuses the URL. */
function parsedPath(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).pathname : undefined;
}

describe('readPlainPath', () => {
  it('reads plain paths without the query or fragment', () => {
    expect(readPlainPath('http://127.0.0.1:8080/api/anthropic/v1/messages')).toBe('/api/anthropic/v1/messages');
    expect(readPlainPath('http://localhost/api/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')).toBe('/api/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(readPlainPath('https://gw.example.com/v1/models#top')).toBe('/v1/models');
    expect(readPlainPath('http://[::1]:3000/healthz?x=1#y')).toBe('/healthz');
  });

  it('leaves to the parser what it would rewrite or refuse', () => {
    for (const url of [
      'http://h/api/../v1/messages',
      'http://h/api/./v1',
      'http://h/a/%2e%2e/b',
      'http://h/a\\b',
      'http://h/a b',
      'http://h/caf\u00e9',
      'http://exa mple/api/openai/v1/models',
      'http://999.1.1.1/x',
      'http://h:99999/x',
      'http://h',
      'not a url',
    ]) {
      expect(readPlainPath(url), url).toBeUndefined();
    }
  });

  it('agrees with the URL parser on every path it reads (differential, seeded)', () => {
    const hosts = ['127.0.0.1:8080', 'localhost', 'gw.test', 'EXAMPLE.com', '[::1]', '1.2.3', 'a b', 'h:1', '0x7f.1', 'u:p@h', ''];
    const pieces = ['/', 'a', 'v1', '.', '..', '%2e', '%2F', '%41', '\\', ' ', '?', '#', ':', '@', '~', "'", '"', '<', '|', '{', '^', '`', '\u00e9', '\t', '=', '&', '+', ';'];
    const next = seededInts(7);
    let read = 0;
    for (let i = 0; i < 20_000; i++) {
      let path = '/';
      const length = next(8);
      for (let j = 0; j < length; j++) path += pieces[next(pieces.length)];
      const url = `http://${hosts[next(hosts.length)]}${path}`;
      const plain = readPlainPath(url);
      if (plain === undefined) continue;
      read++;
      expect(plain, url).toBe(parsedPath(url));
    }
    // The fast path has to be the common one, or it saves nothing.
    expect(read).toBeGreaterThan(2_000);
  });
});

describe('readQueryText', () => {
  it('gives URLSearchParams what url.searchParams reads (differential, seeded)', () => {
    const pieces = ['?', '#', '&', '=', 'a', 'key', 'alt', 'sse', '+', '%20', '%zz', ' ', '\u00e9', '/', ';'];
    const next = seededInts(11);
    for (let i = 0; i < 10_000; i++) {
      let tail = '';
      const length = next(10);
      for (let j = 0; j < length; j++) tail += pieces[next(pieces.length)];
      const url = `http://h/p${tail}`;
      if (!URL.canParse(url)) continue;
      const text = readQueryText(url);
      if (text !== undefined) expect([...new URLSearchParams(text)], url).toEqual([...new URL(url).searchParams]);
    }
    expect([...new URLSearchParams(readQueryText('http://h/v1beta/models/m:streamGenerateContent?alt=sse&key=k'))]).toEqual([['alt', 'sse'], ['key', 'k']]);
    expect(readQueryText('http://h/p?a=1\tb')).toBeUndefined();
  });
});

describe('readPlainQueryValue', () => {
  it('gives what URLSearchParams.get gives, or leaves it to the parser (differential, seeded)', () => {
    const pieces = ['&', '=', 'a', 'alt', 'sse', 'key', '+', '%20', '%61lt', '?', ';', 'x', '=='];
    const names = ['alt', 'key', 'a', ''];
    const next = seededInts(13);
    let read = 0;
    for (let i = 0; i < 20_000; i++) {
      let text = next(2) ? '?' : '';
      const length = next(8);
      for (let j = 0; j < length; j++) text += pieces[next(pieces.length)];
      const name = names[next(names.length)]!;
      const value = readPlainQueryValue(text, name);
      if (value === undefined) continue;
      read++;
      expect(value, `${text} ${name}`).toBe(new URLSearchParams(text).get(name));
    }
    expect(read).toBeGreaterThan(10_000);
    expect(readPlainQueryValue('?alt=sse', 'alt')).toBe('sse');
    expect(readPlainQueryValue('?key=k&alt=sse&alt=json', 'alt')).toBe('sse');
    expect(readPlainQueryValue('?alt', 'alt')).toBe('');
    expect(readPlainQueryValue('', 'alt')).toBeNull();
    expect(readPlainQueryValue('?alt=%73se', 'alt')).toBeUndefined();
  });
});
