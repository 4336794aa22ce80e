import { readFile } from 'node:fs/promises';
import { type OpenApiDocument, openapiDocument } from '@institution-api/types';
import { parse } from 'yaml';
import { isObject } from './json-schema.js';

/** The spec could not be read or is not an OpenAPI 3.1 document; a usage error of the run. */
export class SpecError extends Error {}

/**
 * The OpenAPI document to check against: a file (YAML or JSON), an `http(s)` URL, or by default
 * the bundled spec that ships with `@institution-api/types` (the contract this package was
 * released with).
 */
export async function loadSpec(source?: string): Promise<OpenApiDocument> {
  if (source === undefined) return openapiDocument;
  let text: string;
  if (/^https?:\/\//i.test(source)) {
    const response = await fetch(source, { signal: AbortSignal.timeout(30_000) }).catch(
      (error: unknown) => {
        throw new SpecError(`cannot fetch the spec ${source}: ${(error as Error).message}`);
      },
    );
    if (!response.ok) throw new SpecError(`cannot fetch the spec ${source}: ${response.status}`);
    text = await response.text();
  } else {
    text = await readFile(source, 'utf8').catch((error: { code?: string }) => {
      throw new SpecError(`cannot read the spec ${source} (${error.code ?? 'error'})`);
    });
  }
  let document: unknown;
  try {
    document = parse(text); // YAML 1.2 reads JSON too
  } catch (error) {
    throw new SpecError(`the spec ${source} is neither JSON nor YAML: ${(error as Error).message}`);
  }
  if (
    !isObject(document) ||
    typeof document.openapi !== 'string' ||
    !document.openapi.startsWith('3.1') ||
    !isObject(document.paths)
  ) {
    throw new SpecError(`the spec ${source} is not an OpenAPI 3.1 document with paths`);
  }
  return { components: {}, ...document } as OpenApiDocument;
}
