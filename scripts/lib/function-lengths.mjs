// @ts-check
// How long the repository's functions are: each function, method, arrow function and accessor
// of a TypeScript or JavaScript file, with its lines from its first to its last (a function
// nested in another counts on its own, and in the one that holds it). For
// `node scripts/function-lengths.mjs` and the test that keeps every function of `src/` under
// 150 lines (e2e/test/repository/function-lengths.test.ts).
import ts from 'typescript';

/**
 * A function's length and where it is.
 *
 * @typedef {{ file: string; line: number; name: string; lines: number }} FunctionLength
 */

/**
 * The name a reader finds a function by: its own, the variable or property it is assigned to,
 * or the class member it is.
 *
 * @param {ts.SignatureDeclaration} node @param {ts.SourceFile} source
 */
function nameOf(node, source) {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText(source);
  }
  if (ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `${parent.expression.getText(source).slice(0, 40)}(…)`;
  return '(anonymous)';
}

/**
 * Every function of one file, with its length.
 *
 * @param {string} file the file's name, as it is reported @param {string} text its content
 * @returns {FunctionLength[]}
 */
export function functionLengths(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  /** @type {FunctionLength[]} */
  const found = [];
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, line: first + 1, name: nameOf(node, source), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
