/**
 * Python's `str()` of a JSON value as `json.loads` gives it (a dict, a list): what a signer
 * signs when it writes `str(payload)` where it meant `json.dumps(payload)`. Single quotes,
 * `True`, `False`, `None`, `', '` and `': '`, a float's `.0`.
 *
 * @module
 */
import type { JsonNode } from './json-text.js';

/** `str()` of the value `node` is, for an object or an array; undefined for anything else. */
export function pythonRepr(node: JsonNode): string | undefined {
  return node.kind === 'object' || node.kind === 'array' ? repr(node) : undefined;
}

function repr(node: JsonNode): string {
  switch (node.kind) {
    case 'object':
      return `{${node.members.map(({ key, value }) => `${stringRepr(key.value)}: ${repr(value)}`).join(', ')}}`;
    case 'array':
      return `[${node.items.map(repr).join(', ')}]`;
    case 'string':
      return stringRepr(node.value);
    case 'literal':
      return { true: 'True', false: 'False', null: 'None' }[node.raw];
    case 'number':
      // json.loads gives an int for digits alone, a float otherwise.
      if (/^-?\d+$/.test(node.raw)) return node.raw.replace(/^-0$/, '0');
      return Number.isInteger(node.value) && Math.abs(node.value) < 1e16
        ? `${node.value}.0`
        : String(node.value);
  }
}

/** Python's `repr` of a str: single quotes unless it holds one and no double quote. */
function stringRepr(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\') out += '\\\\';
    else if (char === quote) out += `\\${quote}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return out + quote;
}
