import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openapiDocument } from '../src/index.js';

describe('@institution-api/types', () => {
  it('embeds the bundled spec, identical to the file it ships', () => {
    const shipped = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'));
    expect(openapiDocument).toEqual(shipped);
    expect(openapiDocument.openapi).toBe('3.1.0');
    expect(Object.keys(openapiDocument.paths)).toEqual([
      '/api/v1/external/users',
      '/api/v1/external/users/{id}',
    ]);
  });

  it('marks the generated files as generated', () => {
    for (const file of ['openapi.ts', 'spec.ts']) {
      const text = readFileSync(new URL(`../src/generated/${file}`, import.meta.url), 'utf8');
      expect(text.slice(0, 300)).toMatch(/auto-generated/);
    }
  });
});
