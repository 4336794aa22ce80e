import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as index from '../src/index.js';
import * as nodeEntry from '../src/node.js';

const SRC = new URL('../src/', import.meta.url);

/** Every module specifier in a file: static imports/exports and dynamic imports. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) found.push(match[1] as string);
  }
  return found;
}

/**
 * A source without its comments and string literals: what it runs, not what it says (a message
 * may name Node's `Buffer` to a reader).
 */
function code(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, "''");
}

/** The files reachable from src/index.ts through relative imports, with their sources. */
function moduleGraph(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    const source = readFileSync(new URL(file, SRC), 'utf8');
    seen.set(file, source);
    for (const specifier of specifiers(source)) {
      if (specifier.startsWith('./')) queue.push(specifier.slice(2).replace(/\.js$/, '.ts'));
    }
  }
  return seen;
}

/**
 * Relative modules, and `structured-headers` (RFC 8941/9651, pure ECMAScript, no `node:`
 * imports) for the fields of message signatures.
 */
const ALLOWED_IMPORT = /^(?:\.\/[\w-]+\.js|structured-headers)$/;

describe('Web Crypto entry point (src/index.ts)', () => {
  const graph = moduleGraph('index.ts');

  it('reaches the expected modules (so the scan below is not vacuous)', () => {
    expect([...graph.keys()].sort()).toEqual([
      'algorithms.ts',
      'authorization-diagnosis.ts',
      'authorization-form.ts',
      'authorization-header.ts',
      'base-candidates.ts',
      'body-variants.ts',
      'canonical-fields.ts',
      'charset-variants.ts',
      'diagnosis-budget.ts',
      'diagnosis-common.ts',
      'diagnosis-crypto.ts',
      'encoding.ts',
      'index.ts',
      'json-text.ts',
      'json.ts',
      'message-signature-diagnosis.ts',
      'message-signature-fields.ts',
      'message-signature-web.ts',
      'message-signature.ts',
      'misused-keys.ts',
      'python-repr.ts',
      'request-target.ts',
      'runtime-independent.ts',
      'secret-redaction.ts',
      'signature-diagnosis.ts',
      'subtle-crypto.ts',
      'web-crypto.ts',
    ]);
  });

  it('imports nothing but its own relative modules and the structured-fields parser: no node: built-ins', () => {
    for (const [file, source] of graph) {
      for (const specifier of specifiers(source)) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(ALLOWED_IMPORT);
      }
      expect(source, file).not.toMatch(/['"]node:/);
    }
  });

  it('uses no Node-only globals', () => {
    for (const [file, source] of graph) {
      expect(code(source), file).not.toMatch(
        /\b(?:Buffer|process|require|__dirname|setImmediate)\b/,
      );
    }
  });

  it('exports exactly the public API', () => {
    expect(Object.keys(index).sort()).toEqual([
      'DEFAULT_MAX_SKEW_SECONDS',
      'DEFAULT_SIGNATURE_LABEL',
      'DEFAULT_SIGNATURE_OPTIONS',
      'MAX_NONCE_LENGTH',
      'MESSAGE_SIGNATURE_ALGORITHM',
      'WEB_CRYPTO_UNAVAILABLE',
      'WebCryptoUnavailableError',
      'bodyFingerprint',
      'decideMessageSignature',
      'defaultDiagnosisBudget',
      'describeMessageSignature',
      'diagnoseSignature',
      'formatAuthorization',
      'parseAuthorization',
      'presentedPublicKey',
      'redactSecret',
      'routedTarget',
      'sign',
      'signBody',
      'signMessage',
      'signQuery',
      'signatureBaseFor',
      'verify',
      'verifyMessageSignature',
    ]);
  });
});

describe("the signer entry point's Web Crypto side (src/signer-web.ts)", () => {
  const graph = moduleGraph('signer-web.ts');

  it('reaches the expected modules (so the scan below is not vacuous)', () => {
    expect([...graph.keys()].sort()).toEqual([
      'algorithms.ts',
      'canonical-fields.ts',
      'encoding.ts',
      'json.ts',
      'message-signature-web.ts',
      'message-signature.ts',
      'request-target.ts',
      'signer-web.ts',
      'signer.ts',
      'subtle-crypto.ts',
      'web-crypto.ts',
    ]);
  });

  it('imports nothing but its own relative modules and uses no Node-only globals', () => {
    for (const [file, source] of graph) {
      for (const specifier of specifiers(source)) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(ALLOWED_IMPORT);
      }
      expect(code(source), file).not.toMatch(
        /\b(?:Buffer|process|require|__dirname|setImmediate)\b/,
      );
    }
  });
});

describe('package.json exports of ./signer', () => {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

  it('resolve node:crypto under the node condition and Web Crypto everywhere else', () => {
    expect(manifest.exports['./signer']).toEqual({
      node: { types: './dist/signer-node.d.ts', default: './dist/signer-node.js' },
      default: { types: './dist/signer-web.d.ts', default: './dist/signer-web.js' },
    });
  });
});

describe('node entry point (src/node.ts)', () => {
  it('exports the sync functions and the shared helpers', () => {
    expect(Object.keys(nodeEntry).sort()).toEqual([
      'DEFAULT_MAX_SKEW_SECONDS',
      'DEFAULT_SIGNATURE_LABEL',
      'DEFAULT_SIGNATURE_OPTIONS',
      'MAX_NONCE_LENGTH',
      'MESSAGE_SIGNATURE_ALGORITHM',
      'WEB_CRYPTO_UNAVAILABLE',
      'WebCryptoUnavailableError',
      'bodyFingerprint',
      'decideMessageSignature',
      'defaultDiagnosisBudget',
      'describeMessageSignature',
      'diagnoseSignature',
      'formatAuthorization',
      'parseAuthorization',
      'presentedPublicKey',
      'redactSecret',
      'routedTarget',
      'signBodySync',
      'signMessageSync',
      'signQuerySync',
      'signSync',
      'signatureBaseFor',
      'verifyMessageSignatureSync',
      'verifySync',
    ]);
  });

  it('shares the header helpers with the Web Crypto entry (one implementation)', () => {
    expect(nodeEntry.parseAuthorization).toBe(index.parseAuthorization);
    expect(nodeEntry.formatAuthorization).toBe(index.formatAuthorization);
    expect(nodeEntry.DEFAULT_SIGNATURE_OPTIONS).toBe(index.DEFAULT_SIGNATURE_OPTIONS);
    expect(nodeEntry.signatureBaseFor).toBe(index.signatureBaseFor);
    expect(nodeEntry.routedTarget).toBe(index.routedTarget);
    expect(nodeEntry.defaultDiagnosisBudget).toBe(index.defaultDiagnosisBudget);
  });
});
