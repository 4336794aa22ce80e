import { describe, expect, it } from 'vitest';
import { recognize, sameAccount } from '../../src/rules/index.js';

/** The cases of spec Assumptions, "Existing users", which the storages are held to as well. */
export const recognitionCases = [
  { isMember: true, stored: '+233241234567', sent: '+233241234567', want: 'member' },
  { isMember: true, stored: '+233241234567', sent: '+233201234567', want: 'member' },
  { isMember: false, stored: '+233241234567', sent: '+233241234567', want: 'join' },
  {
    isMember: false,
    stored: '+233241234567',
    sent: '+233201234567',
    want: 'exists-with-other-details',
  },
] as const;

describe('recognize (spec: Assumptions, "Existing users")', () => {
  it.each(recognitionCases)('member $isMember, stored $stored, sent $sent: $want', (c) => {
    expect(recognize({ isMember: c.isMember, mobileNumber: c.stored }, c.sent)).toBe(c.want);
  });
});

describe('sameAccount (spec: AccountCreated.id)', () => {
  const wallet = { accountType: 'MOMO', accountNumber: '+233241234567', accountName: 'Ama' };
  it.each([
    [wallet, { ...wallet, accountName: 'A. Mensah', network: 'TELECEL' }, true],
    [wallet, { ...wallet, accountNumber: '+233201234567' }, false],
    [wallet, { ...wallet, accountType: 'BANK' }, false],
    [null, wallet, false],
    [wallet, null, false],
  ])('%j then %j: %s', (before, after, same) => {
    expect(sameAccount(before, after)).toBe(same);
  });
});
