import { readFileSync } from 'node:fs';

/** The TypeScript block of this package's README "Quick start", as a reader copies it. */
export function readmeQuickStart(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const quickStart = /\n## Quick start\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!quickStart) throw new Error("the README's Quick start has no ts block");
  return quickStart;
}
