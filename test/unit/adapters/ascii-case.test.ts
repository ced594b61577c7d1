import { describe, expect, it } from 'vitest';
import { equalsLowerAscii, lowerAscii } from '../../../adapters/ascii-case.ts';

describe('lowerAscii', () => {
  it('gives a lower-case name back as it is, and lowers any other as toLowerCase does', () => {
    const name = 'x-api-key';
    expect(lowerAscii(name)).toBe(name);
    for (const mixed of ['Content-Type', 'X-API-KEY', 'aZ', 'Ünïcode-Name', '']) expect(lowerAscii(mixed)).toBe(mixed.toLowerCase());
  });
});

describe('equalsLowerAscii', () => {
  it('matches a header name against a lower-case one whatever the case of its ASCII letters', () => {
    expect(equalsLowerAscii('Content-Type', 'content-type')).toBe(true);
    expect(equalsLowerAscii('CONTENT-TYPE', 'content-type')).toBe(true);
    expect(equalsLowerAscii('content-type', 'content-type')).toBe(true);
    expect(equalsLowerAscii('content-typf', 'content-type')).toBe(false);
    expect(equalsLowerAscii('content-type ', 'content-type')).toBe(false);
    // Only A–Z fold: '@' (64) and '[' (91) sit just outside and must not match '`' or '{'.
    expect(equalsLowerAscii('@', '`')).toBe(false);
    expect(equalsLowerAscii('[', '{')).toBe(false);
  });
});
