/**
 * The operations' code samples are programs kept as files under `code-samples/<language>/`, and
 * the spec's `x-codeSamples` point at them with `source: { $ref }`, which Redocly's bundler
 * replaces with the file's text. These tests pin that mechanism: the bundle the docs page and
 * every other workspace read carries each file byte for byte, and no sample is left out or
 * written inline. Running the samples is the docs' job (e2e/test/docs/code-samples.system.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { spec } from './spec.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const samplesDir = join(root, 'code-samples');

/** Every operation, with the path file that defines it and the bundled operation. */
const operations = [
  ['createUser', 'paths/api_v1_external_users.yaml', '/api/v1/external/users', 'post'],
  ['updateUser', 'paths/api_v1_external_users_{id}.yaml', '/api/v1/external/users/{id}', 'put'],
] as const;

/** The languages every operation shows, in the request panel's order. */
const languages = ['curl', 'TypeScript', 'Python', 'PHP', 'Go', 'Java'];

interface SourceSample {
  lang: string;
  label: string;
  source: { $ref: string } | string;
}

interface BundledSample {
  lang: string;
  label: string;
  source: string;
}

function sourceSamples(file: string, method: string): SourceSample[] {
  const item = parse(readFileSync(join(root, file), 'utf8')) as Record<
    string,
    { 'x-codeSamples': SourceSample[] }
  >;
  return item[method]?.['x-codeSamples'] ?? [];
}

function bundledSamples(path: string, method: string): BundledSample[] {
  const operation = spec.paths[path]?.[method] as { 'x-codeSamples'?: BundledSample[] };
  return operation['x-codeSamples'] ?? [];
}

/** Every file under code-samples/ except the folder's own lint settings. */
function sampleFiles(dir = samplesDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sampleFiles(path);
    return entry.name.startsWith('biome.') ? [] : [relative(root, path)];
  });
}

describe.each(operations)('%s x-codeSamples', (_, file, path, method) => {
  const sources = sourceSamples(file, method);
  const bundled = bundledSamples(path, method);

  it('lists curl, TypeScript, Python, PHP, Go and Java, each labelled by its language', () => {
    expect(sources.map(({ lang }) => lang)).toEqual(languages);
    expect(sources.map(({ label }) => label)).toEqual(languages);
  });

  it('takes every sample from a file under code-samples/, none written inline', () => {
    for (const { lang, source } of sources) {
      expect(typeof source, lang).toBe('object');
      const target = resolve(dirname(join(root, file)), (source as { $ref: string }).$ref);
      expect(relative(samplesDir, target), lang).not.toMatch(/^\.\./);
    }
  });

  it("bundles each file's exact text", () => {
    expect(bundled.map(({ lang }) => lang)).toEqual(languages);
    for (const [index, { lang, source }] of sources.entries()) {
      const target = resolve(dirname(join(root, file)), (source as { $ref: string }).$ref);
      expect(bundled[index]?.source, `${lang}: ${relative(root, target)}`).toBe(
        readFileSync(target, 'utf8'),
      );
    }
  });
});

it('uses every file under code-samples/', () => {
  const referenced = operations.flatMap(([, file, , method]) =>
    sourceSamples(file, method).map(({ source }) =>
      relative(root, resolve(dirname(join(root, file)), (source as { $ref: string }).$ref)),
    ),
  );
  expect(sampleFiles().sort()).toEqual(referenced.sort());
});
