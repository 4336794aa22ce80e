/**
 * No function of any workspace's `src/` is over 150 lines (the developers' guide): one that grows
 * past it is split by what each part does. `node scripts/function-lengths.mjs --list 80` lists
 * the long ones of the whole repository.
 */
import { describe, expect, it } from 'vitest';
import { functionLengths } from '../../../scripts/lib/function-lengths.mjs';
import { isTest, sourceFiles } from './support/source-files.js';

const limit = 150;

describe('function lengths', () => {
  const source = sourceFiles().filter(
    (file) => /(^|\/)src\//.test(file.path) && !isTest(file.path),
  );

  it('measures every function of src/, nested ones and class members included', () => {
    expect(source.length).toBeGreaterThan(200);
    const [measured] = functionLengths(
      'example.ts',
      'class A {\n  m() {\n    const f = () => {\n      return 1;\n    };\n  }\n}\n',
    ).sort((a, b) => b.lines - a.lines);
    expect(measured).toEqual({ file: 'example.ts', line: 2, name: 'm', lines: 5 });
  });

  it(`finds none over ${limit} lines in src/`, () => {
    const long = source
      .flatMap((file) => functionLengths(file.path, file.text))
      .filter(({ lines }) => lines > limit)
      .map(({ file, line, name, lines }) => `${file}:${line} ${name}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
