import { readFileSync } from 'node:fs';

/** The README's Quick start: the test file it shows, as written. */
export function readmeQuickStart(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /```ts title="users\.test\.ts"\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('the README has no users.test.ts block');
  return block;
}
