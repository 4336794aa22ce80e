/**
 * The bearer token of `mcp --http` (bearer-token.ts): where it comes from, what it accepts, and
 * that nothing it says names the token.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken, resolveToken } from '../../src/mcp/bearer-token.js';

const given = 'tok_0123456789abcdefghijklmnopqrstuv';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-token-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a bearer token', () => {
  it.each([
    { authorization: `Bearer ${given}`, want: 'valid' },
    { authorization: `bearer   ${given}`, want: 'valid' },
    { authorization: `Bearer ${given}x`, want: 'invalid' },
    { authorization: `Bearer ${given.slice(1)}`, want: 'invalid' },
    { authorization: 'Bearer x', want: 'invalid' },
    { authorization: `Basic ${given}`, want: 'missing' },
    { authorization: given, want: 'missing' },
    { authorization: 'Bearer', want: 'missing' },
    { authorization: undefined, want: 'missing' },
  ])('reads Authorization $authorization as $want', async ({ authorization, want }) => {
    const token = await resolveToken({ INSTITUTION_MCP_TOKEN: given }, undefined);
    expect(token.source).toBe('INSTITUTION_MCP_TOKEN');
    expect(token.check(authorization)).toBe(want);
  });

  it('is a new one of 256 random bits when none is given', async () => {
    const [a, b] = [generateToken(), await resolveToken({}, undefined)];
    expect(a.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.source).toBe('generated');
    expect(a.value).not.toBe(b.value);
    expect(a.check(`Bearer ${b.value}`)).toBe('invalid');
  });

  it('is the first line of --token-file', async () => {
    const file = join(dir, 'token');
    await writeFile(file, `${given}\nignored\n`, { mode: 0o600 });
    const token = await resolveToken({}, file);
    expect(token).toMatchObject({ value: given, source: '--token-file' });
    expect(token.warning).toBeUndefined();
  });

  it('warns of a --token-file other users can read, without its content', async () => {
    const file = join(dir, 'shared-token');
    await writeFile(file, `${given}\n`, { mode: 0o644 });
    const { warning } = await resolveToken({}, file);
    expect(warning).toMatch(/can be read by other users \(mode 644\): chmod 600 it/);
    expect(warning).not.toContain(given);
  });

  it.each([
    {
      env: { INSTITUTION_MCP_TOKEN: 'short' },
      file: undefined,
      want: /INSTITUTION_MCP_TOKEN must be at least 22 characters/,
    },
    {
      env: { INSTITUTION_MCP_TOKEN: `${given} spaced` },
      file: undefined,
      want: /INSTITUTION_MCP_TOKEN must be/,
    },
    { env: { INSTITUTION_MCP_TOKEN: given }, file: 'x', want: /not both/ },
    { env: {}, file: '/nonexistent/token', want: /--token-file: cannot read the file \(ENOENT\)/ },
  ])('refuses $want, naming the source and never the value', async ({ env, file, want }) => {
    const error = await resolveToken(env, file).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(want);
    expect((error as Error).message).not.toContain(given);
    expect((error as Error).message).not.toContain('short');
  });
});
