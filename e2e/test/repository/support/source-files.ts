/**
 * The repository's own files, as the repository-wide checks read them: every workspace and the
 * root's scripts, without installs, builds, generated code or data. Read from the file system
 * (no `git` process: these checks run in the fast tier), skipping what `.gitignore` leaves out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { repository } from '../../workspaces.js';

/** Folders that are never the repository's own source. */
const skipped = new Set([
  'node_modules',
  'dist',
  '.turbo',
  '.git',
  'generated',
  'data',
  'reports',
  'coverage',
  '.cache',
]);

/** A file of the repository, by its path from the root (with `/`). */
export interface SourceFile {
  path: string;
  /** The workspace folder it belongs to (`packages/client`), or `.` for the root's own. */
  workspace: string;
  text: string;
}

/** Every workspace folder: the root package.json's `workspaces` globs. */
export const workspaceFolders: string[] = (
  JSON.parse(readFileSync(join(repository, 'package.json'), 'utf8')).workspaces as string[]
).flatMap((pattern) =>
  pattern.endsWith('/*')
    ? readdirSync(join(repository, pattern.slice(0, -2)), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
    : [pattern],
);

/** The name of each workspace folder's package (`packages/client` → `@institution-api/client`). */
export const workspaceNames = new Map(
  workspaceFolders.map((folder) => [
    folder,
    JSON.parse(readFileSync(join(repository, folder, 'package.json'), 'utf8')).name as string,
  ]),
);

function walk(dir: string, found: string[]) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skipped.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, found);
    else found.push(relative(repository, path).split(sep).join('/'));
  }
  return found;
}

/** Every file of the repository whose name ends with one of `extensions`. */
export function sourceFiles(extensions = ['.ts', '.mts', '.mjs', '.js', '.cjs']): SourceFile[] {
  return walk(repository, [])
    .filter((path) => extensions.some((extension) => path.endsWith(extension)))
    .map((path) => ({
      path,
      workspace: workspaceFolders.find((folder) => path.startsWith(`${folder}/`)) ?? '.',
      text: readFileSync(join(repository, path), 'utf8'),
    }));
}

/** A test, a test's support file, a type test or a config of the test runner. */
export const isTest = (path: string): boolean =>
  /(^|\/)test\//.test(path) || /\.test(-d)?\.[cm]?[jt]s$/.test(path) || /vitest\.config/.test(path);

/**
 * The code of a workspace, which the architecture's claims are about: its `src/`, `scripts/`,
 * `bin/` and the docs' `console/`, and the root's `scripts/`; tests left out, and the programs
 * written for people to read and run on their own (code samples, the vector runners, the
 * client's consumer code, benchmarks).
 */
export const isCode = (file: SourceFile): boolean => {
  const inside = file.workspace === '.' ? file.path : file.path.slice(file.workspace.length + 1);
  return /^(src|scripts|bin|console)\//.test(inside) && !isTest(file.path);
};

/** What a file names other modules with: its import and export specifiers, `import()`, `require()`, `resolve()` arguments. */
export function moduleSpecifiers(file: SourceFile): string[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source);
      const [first] = node.arguments;
      if (/(^import$|require$|resolve$|resolveFile$)/.test(callee) && first) {
        // A template names its module by the text before its first substitution.
        if (ts.isStringLiteralLike(first)) found.push(first.text);
        else if (ts.isTemplateExpression(first)) found.push(first.head.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The parsed syntax tree of a file. */
export const syntaxOf = (file: SourceFile): ts.SourceFile =>
  ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
