/**
 * The changelog page's reading of a package's CHANGELOG (scripts/lib/changelog-page.mjs): its
 * sections by version. The page itself, from Redocly's `diff` of the contract: changelog.system.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { changelogSections } from '../scripts/lib/changelog-page.mjs';

describe('changelogSections', () => {
  it('splits a CHANGELOG by version, newest first', () => {
    const sections = changelogSections('# pkg\n\n## 2.0.0\n\n- b\n\n## 1.0.0\n\n- a\n');
    expect([...sections]).toEqual([
      ['2.0.0', '- b'],
      ['1.0.0', '- a'],
    ]);
  });
});
