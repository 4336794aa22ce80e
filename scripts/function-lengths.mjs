#!/usr/bin/env node
// @ts-check
// `node scripts/function-lengths.mjs [--list <lines>]`: how many functions of the repository are
// over 80 and over 150 lines, in `src/` and in all code (tests left out), and with --list the
// functions over <lines>, longest first. Files are those git tracks.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { functionLengths } from './lib/function-lengths.mjs';
import { repositoryRoot } from './release/workspace.mjs';

const { values } = parseArgs({ options: { list: { type: 'string' } } });

const tracked = execFileSync('git', ['ls-files', '*.ts', '*.mts', '*.mjs', '*.js', '*.cjs'], {
  cwd: repositoryRoot,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean)
  .filter((file) => !/(^|\/)generated\//.test(file));
const isTest = (/** @type {string} */ file) =>
  /(^|\/)test\//.test(file) || /\.test(-d)?\.[cm]?[jt]s$/.test(file);
const code = tracked.filter((file) => !isTest(file));
const scopes = {
  'src/': code.filter((file) => /(^|\/)src\//.test(file)),
  'all code (tests left out)': code,
};

const lengths = new Map(
  code.map((file) => [
    file,
    functionLengths(file, readFileSync(join(repositoryRoot, file), 'utf8')),
  ]),
);
for (const [scope, files] of Object.entries(scopes)) {
  const all = files.flatMap((file) => lengths.get(file) ?? []);
  const over = (/** @type {number} */ limit) => all.filter(({ lines }) => lines > limit).length;
  console.log(
    `${scope}: ${all.length} functions in ${files.length} files; over 80 lines: ${over(80)}; over 150 lines: ${over(150)}`,
  );
}
if (values.list !== undefined) {
  const limit = Number(values.list);
  const long = [...lengths.values()].flat().filter(({ lines }) => lines > limit);
  for (const { file, line, name, lines } of long.sort((a, b) => b.lines - a.lines)) {
    console.log(`${String(lines).padStart(4)}  ${file}:${line}  ${name}`);
  }
}
