/**
 * Where the workspaces these tests cross are, found as any package is found, by its name and what
 * its manifest exports, never by a path into another workspace's folder or build output.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The root of the repository (the e2e workspace is one of its folders). */
export const repository = fileURLToPath(new URL('../../', import.meta.url));

/** A file a workspace exports (`@institution-api/docs/index.html`), as a path. */
export const exportedFile = (specifier: string): string => require.resolve(specifier);

/** The folder of a workspace, from its exported `package.json`. */
export const workspaceDir = (name: string): string =>
  dirname(require.resolve(`${name}/package.json`));

/** The bundled spec, as the spec's workspace exports it to every other. */
export const bundledSpec = JSON.parse(
  readFileSync(exportedFile('@institution-api/openapi/openapi.json'), 'utf8'),
) as {
  info: { description: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: {
    schemas: Record<string, unknown>;
    examples: Record<string, { value: unknown }>;
    responses: Record<string, unknown>;
  };
};
