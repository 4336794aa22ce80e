/**
 * The client's public API (its built declarations, what a consumer's compiler reads) shows the
 * frozen upstream (openapi-fetch, and openapi-typescript's helpers) in two places only, both on
 * purpose (ARCHITECTURE.md, "The frozen upstream"): `raw`, which IS openapi-fetch's client typed
 * with the generated `paths`, and the signing middleware, which IS an openapi-fetch middleware.
 * Every other name a consumer meets is the project's own, so replacing openapi-fetch changes
 * those two and nothing else a consumer compiles against.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const upstream = /^(openapi-fetch|openapi-typescript|openapi-typescript-helpers)(\/|$)/;

/** Every `.d.ts` of the build, by its path in dist/. */
function declarations(dir = dist): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return declarations(path);
    return entry.name.endsWith('.d.ts') ? [path.slice(dist.length)] : [];
  });
}

/** `file: name` for each name a declaration file takes from the upstream packages. */
function upstreamNames(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(dist, file), 'utf8'),
    ts.ScriptTarget.Latest,
  );
  const names: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      upstream.test(node.moduleSpecifier.text)
    ) {
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) names.push(`${file}: ${element.name.text}`);
      } else names.push(`${file}: * as ${node.moduleSpecifier.text}`);
    }
    if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      upstream.test(node.moduleSpecifier.text)
    ) {
      names.push(`${file}: re-exports ${node.moduleSpecifier.text}`);
    }
    if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal) &&
      upstream.test(node.argument.literal.text)
    ) {
      names.push(`${file}: import("${node.argument.literal.text}")`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

describe("the client's declarations", () => {
  const files = declarations();

  it('are the build of every module, the entry point among them', () => {
    expect(files).toContain('index.d.ts');
    expect(files.length).toBeGreaterThan(5);
  });

  it("take from openapi-fetch only the raw client's type and the middleware's", () => {
    expect(files.flatMap(upstreamNames).sort()).toEqual([
      'signing-middleware.d.ts: Middleware',
      'users-client.d.ts: Client',
    ]);
  });
});
