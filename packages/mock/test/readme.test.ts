/** The README's Quick start is the test file the package runs, word for word. */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readmeQuickStart } from './support/readme.js';

it("the README's users.test.ts is test/msw/users.example.test.ts", () => {
  const tested = readFileSync(new URL('./msw/users.example.test.ts', import.meta.url), 'utf8');
  expect(readmeQuickStart()).toBe(tested);
});
