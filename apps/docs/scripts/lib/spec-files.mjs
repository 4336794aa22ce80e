/**
 * Where the bundled spec is: `@institution-api/openapi` builds it (`redocly bundle`) into its
 * `dist/`, and exports it as `./openapi.yaml` and `./openapi.json`. The docs never read the
 * hand-written source files, so the page shows exactly what the server and types are built from.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The bundled spec files, resolved through the package exports.
 *
 * @returns {{ yaml: string; json: string }} absolute paths
 * @throws {Error} saying how to build them when they are missing
 */
export function bundledSpecFiles() {
  const files = {
    yaml: fileURLToPath(import.meta.resolve('@institution-api/openapi/openapi.yaml')),
    json: fileURLToPath(import.meta.resolve('@institution-api/openapi/openapi.json')),
  };
  for (const file of Object.values(files)) {
    if (!existsSync(file)) {
      throw new Error(
        `${file} is missing: build the spec first (npx turbo run build --filter=@institution-api/docs^...)`,
      );
    }
  }
  return files;
}
