// @ts-check
// A copy of the spec's sources (openapi/) in a new temporary directory, with YAML files edited and
// other files written, as a designer's change would leave them: for the tests of the
// breaking-change gate and of the changelog, which compare it with the spec as it is.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const openapi = fileURLToPath(new URL('../../openapi/', import.meta.url));
/** What `redocly bundle` reads of openapi/. */
const sources = ['openapi.yaml', 'info-description.md', 'paths', 'components', 'code-samples'];

/**
 * Copies the spec's sources, applies `edits` (a file under openapi/ → a mutation of its parsed
 * YAML), writes `texts` (a file → its content); returns the copy's directory (the caller removes
 * it) and its root file.
 * @param {Record<string, (document: any) => void>} edits
 * @param {Record<string, string>} [texts]
 */
export function editedSpecCopy(edits, texts = {}) {
  const directory = mkdtempSync(join(tmpdir(), 'edited-spec-'));
  for (const entry of sources) {
    cpSync(join(openapi, entry), join(directory, entry), { recursive: true });
  }
  for (const [file, edit] of Object.entries(edits)) {
    const document = parse(readFileSync(join(directory, file), 'utf8'));
    edit(document);
    writeFileSync(join(directory, file), stringify(document));
  }
  for (const [file, text] of Object.entries(texts)) writeFileSync(join(directory, file), text);
  return { directory, root: join(directory, 'openapi.yaml') };
}
