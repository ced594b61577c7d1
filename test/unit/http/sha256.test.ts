import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../core/http/sha256.ts';
import { hashPresentedKey } from '../../../core/keys.ts';

describe('sha256Hex', () => {
  it('gives the FIPS 180-2 test vectors as lowercase hex', async () => {
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('hashes the UTF-8 bytes of the text', async () => {
    // echo -n 'clé→' | sha256sum
    expect(await sha256Hex('clé→')).toBe('516e8683c9fc6e029e655c651a123d9a60398304aef7f538a01b8ac62c88fc4a');
  });
});

describe('hashPresentedKey', () => {
  it('answers a key it has seen synchronously, so the per-request check takes no digest round trip', async () => {
    const key = `sy-memo-test-${Math.random()}`;
    const first = hashPresentedKey(key);
    expect(typeof first).not.toBe('string');
    expect(await first).toBe(await sha256Hex(key));
    const again = hashPresentedKey(key);
    expect(again).toBe(await sha256Hex(key));
  });

  it('does not keep over-long strings', async () => {
    const long = 'x'.repeat(513);
    await hashPresentedKey(long);
    expect(typeof hashPresentedKey(long)).not.toBe('string');
  });
});
