import { describe, expect, it } from 'vitest';
import { writeOpenAIUser } from '../../../../core/upstreams/openai/write-user.ts';

/** Claude Code 2.1.332's metadata.user_id: 150 characters. */
const CLAUDE_CODE_USER = JSON.stringify({ device_id: 'b9d9d1212838959eb4beaef85d47b823d0a5c7b8957e8f07fb985c36930b0843', account_uuid: '', session_id: '575c235a-7073-4a0e-b590-ede62e7ff1de' });

describe('writeOpenAIUser', () => {
  it('sends an id of up to 64 characters as it is', () => {
    expect(writeOpenAIUser('user-42')).toBe('user-42');
    expect(writeOpenAIUser('x'.repeat(64))).toBe('x'.repeat(64));
  });

  it('sends a longer id (Claude Code\'s) as a digest that fits, the same for the same id and not for another', () => {
    expect(CLAUDE_CODE_USER.length).toBe(150);
    const digest = writeOpenAIUser(CLAUDE_CODE_USER);
    expect(digest).toMatch(/^u-[0-9a-f]{32}$/);
    expect(writeOpenAIUser(CLAUDE_CODE_USER)).toBe(digest);
    expect(writeOpenAIUser(CLAUDE_CODE_USER.replace('575c235a', '575c235b'))).not.toBe(digest);
    expect(writeOpenAIUser('x'.repeat(65))).toMatch(/^u-[0-9a-f]{32}$/);
  });
});
