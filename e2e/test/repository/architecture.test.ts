/**
 * ARCHITECTURE.md, checked against the code where a claim can be checked: the workspace graph
 * (its table, every import of the code, the published packages' dependencies, no cycle), no
 * `$ref` resolver or JSON Pointer reader outside the spec toolkit, reads of another workspace by
 * package name only, the files it names, and the library versions it states.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repository } from '../workspaces.js';
import {
  isCode,
  moduleSpecifiers,
  type SourceFile,
  sourceFiles,
  syntaxOf,
  workspaceFolders,
  workspaceNames,
} from './support/source-files.js';

const architecture = readFileSync(join(repository, 'ARCHITECTURE.md'), 'utf8');
const files = sourceFiles();
const code = files.filter(isCode);
const scope = '@institution-api/';
const short = (name: string) => name.slice(scope.length);
const manifest = (folder: string) =>
  JSON.parse(readFileSync(join(repository, folder, 'package.json'), 'utf8')) as {
    name: string;
    private?: boolean;
    dependencies?: Record<string, string>;
  };

/** The table between `<!-- workspace-graph -->` markers: each workspace and what it reads. */
function documentedGraph(): Map<string, string[]> {
  const table = /<!-- workspace-graph -->([\s\S]*?)<!-- \/workspace-graph -->/.exec(architecture);
  if (!table?.[1]) throw new Error('ARCHITECTURE.md has no workspace-graph table');
  const rows = table[1].split('\n').filter((line) => line.startsWith('| `@'));
  return new Map(
    rows.map((row) => {
      const [name = '', reads = ''] = row.split('|').slice(1, 3);
      return [
        short(name.trim().replaceAll('`', '')),
        [...reads.matchAll(/`([a-z-]+)`/g)].map((match) => match[1] as string).sort(),
      ];
    }),
  );
}

/** What each workspace's code reads of the others, by the package names it imports. */
function importedGraph(): Map<string, string[]> {
  const graph = new Map<string, Set<string>>(
    workspaceFolders.map((folder) => [short(workspaceNames.get(folder) ?? folder), new Set()]),
  );
  for (const file of code) {
    if (file.workspace === '.') continue;
    const own = short(workspaceNames.get(file.workspace) ?? '');
    for (const specifier of moduleSpecifiers(file)) {
      if (!specifier.startsWith(scope)) continue;
      const name = specifier.slice(scope.length).split('/')[0] as string;
      if (name !== own) graph.get(own)?.add(name);
    }
  }
  return new Map([...graph].map(([name, reads]) => [name, [...reads].sort()]));
}

describe('the workspace graph', () => {
  const documented = documentedGraph();
  const imported = importedGraph();

  it('lists every workspace, each with exactly what its code imports', () => {
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(imported));
  });

  it('has no cycle: the workspaces can be built in an order', () => {
    const left = new Map(documented);
    while (left.size > 0) {
      const ready = [...left].filter(([, reads]) => reads.every((name) => !left.has(name)));
      expect(ready, `a cycle among ${[...left.keys()].join(', ')}`).not.toEqual([]);
      for (const [name] of ready) left.delete(name);
    }
  });

  it('names every workspace in the diagram', () => {
    const diagram = architecture.slice(0, architecture.indexOf('<!-- workspace-graph -->'));
    for (const name of documented.keys()) {
      if (name === 'test-support' || name === 'e2e') continue;
      expect(diagram).toContain(name);
    }
  });

  it('lets a published package import only what it depends on (devDependencies never install)', () => {
    for (const folder of workspaceFolders) {
      const json = manifest(folder);
      if (json.private) continue;
      const runtimeCode = code.filter(
        (file) =>
          file.workspace === folder && /^(src|bin)\//.test(file.path.slice(folder.length + 1)),
      );
      const bare = new Set(
        runtimeCode
          .flatMap(moduleSpecifiers)
          .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
          .map((specifier) =>
            specifier
              .split('/')
              .slice(0, specifier.startsWith('@') ? 2 : 1)
              .join('/'),
          )
          .filter((name) => name !== json.name),
      );
      const declared = Object.keys({
        ...json.dependencies,
        ...(json as { peerDependencies?: Record<string, string> }).peerDependencies,
      });
      expect(
        [...bare].filter((name) => !declared.includes(name)),
        json.name,
      ).toEqual([]);
    }
  });

  it('reads another workspace only by its package name, never by a path into its folder', () => {
    const crossings = files
      .filter((file) => file.workspace !== '.')
      .flatMap((file) =>
        moduleSpecifiers(file)
          .filter((specifier) => specifier.startsWith('.'))
          .map((specifier) => posix.normalize(posix.join(posix.dirname(file.path), specifier)))
          .filter((target) => {
            const owner = workspaceFolders.find((folder) => target.startsWith(`${folder}/`));
            // The root's scripts/ are the repository's, not a workspace's: tests may import them.
            return owner !== file.workspace && !target.startsWith('scripts/');
          })
          .map((target) => `${file.path} → ${target}`),
      );
    expect(crossings).toEqual([]);
  });
});

describe('one spec toolkit', () => {
  const toolkit = 'packages/runtime/src/spec/';

  /** Where a file reads a `$ref` (`x.$ref`, `x?.$ref`, `x['$ref']`, a key compared with `'$ref'`), by line. */
  function refReads(file: SourceFile): number[] {
    const source = syntaxOf(file);
    const lines: number[] = [];
    const visit = (node: ts.Node) => {
      const read =
        (ts.isPropertyAccessExpression(node) && node.name.text === '$ref') ||
        (ts.isStringLiteralLike(node) && node.text === '$ref');
      if (read) lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
      ts.forEachChild(node, visit);
    };
    visit(source);
    return lines;
  }

  it('is the only code that decodes a JSON Pointer (~1, ~0)', () => {
    const decoders = code
      .filter((file) => !file.path.startsWith(toolkit))
      .filter((file) => /['"`]~[01]['"`]/.test(file.text))
      .map((file) => file.path);
    expect(decoders).toEqual([]);
  });

  it('is where every `$ref` the code reads goes: a file that reads one imports the toolkit', () => {
    const readers = code
      .filter((file) => !file.path.startsWith(toolkit) && refReads(file).length > 0)
      .filter((file) => !moduleSpecifiers(file).some((s) => s.startsWith(`${scope}runtime/spec`)))
      .map((file) => `${file.path}:${refReads(file).join(',')}`);
    // Ajv's set-up rewrites each `$ref` to the `$id` it registers the document under; Ajv
    // resolves them.
    expect(readers).toEqual(['packages/runtime/src/spec-ajv.ts:138']);
  });
});

describe('the files and versions it names', () => {
  it('names only files that exist', () => {
    const named = [...architecture.matchAll(/`([\w./-]+\/[\w.-]*|[\w-]+\.(?:ts|mjs|json|md))`/g)]
      .map((match) => match[1] as string)
      .filter((name) => !name.startsWith('@') && !name.startsWith('/') && name !== 'dist/');
    expect(named.length).toBeGreaterThan(10);
    const all = sourceFiles(['']).map((file) => file.path);
    const missing = named.filter(
      (name) =>
        !existsSync(join(repository, name)) &&
        !all.some(
          (path) =>
            path.endsWith(`/${name.replace(/\/$/, '')}`) ||
            dirname(path).endsWith(name.replace(/\/$/, '')),
        ),
    );
    expect(missing).toEqual([]);
  });

  it('states the versions the repository pins', () => {
    const pinned = new Map<string, string>();
    for (const folder of ['.', ...workspaceFolders]) {
      const json = JSON.parse(readFileSync(join(repository, folder, 'package.json'), 'utf8'));
      for (const field of ['dependencies', 'devDependencies']) {
        for (const [name, version] of Object.entries<string>(json[field] ?? {})) {
          if (/^\d/.test(version)) pinned.set(name, version);
        }
      }
    }
    const stated = [...architecture.matchAll(/\b([a-z@][\w./-]*) (\d+\.\d+(?:\.\d+)?)\b/g)]
      .map((match) => [match[1] as string, match[2] as string] as const)
      .filter(([name]) => pinned.has(name));
    expect(stated.length).toBeGreaterThan(4);
    for (const [name, version] of stated) {
      expect(`${name} ${pinned.get(name)}`).toMatch(
        new RegExp(`^${name} ${version.replaceAll('.', '\\.')}(\\.|$)`),
      );
    }
  });
});
