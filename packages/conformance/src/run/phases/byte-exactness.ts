import fc from 'fast-check';
import { acceptedAsSent, refusedReserialized } from '../../checks/byte-exactness.js';
import type { Outcome } from '../../checks/catalog.js';
import type { Exchange } from '../../http/exchange.js';
import { freshIdentity } from '../../semantics/user-semantics.js';
import type { Operation } from '../../spec/contract.js';
import type { RunContext } from '../context.js';
import { targetOf } from '../links.js';
import { runProperty } from '../property.js';
import { subjectParameters } from '../subjects.js';

/** `value` with the keys of every object in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, child]) => [key, reversed(child)]),
  );
}

/**
 * JSON text with every non-ASCII character inside strings written as `\uXXXX`, and the first
 * letter of each string too (so an ASCII-only body has escapes as well): the same value, other
 * bytes.
 */
export function escaped(json: string): string {
  let out = '';
  let inString = false;
  let first = false;
  for (let index = 0; index < json.length; index++) {
    const char = json[index] as string;
    if (inString && char === '\\') {
      out += char + (json[index + 1] ?? '');
      index++;
      first = false;
      continue;
    }
    if (char === '"') {
      inString = !inString;
      first = inString;
      out += char;
      continue;
    }
    const code = char.charCodeAt(0);
    if (inString && (code > 0x7e || (first && /[A-Za-z]/.test(char)))) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else {
      out += char;
    }
    first = false;
  }
  return out;
}

/** Spellings of one body that a JSON parser reads as the same value. */
export function equivalentSpellings(body: unknown): { spelling: string; text: string }[] {
  return [
    { spelling: 'indentation and newlines', text: `${JSON.stringify(body, null, 2)}\n` },
    { spelling: 'its keys in another order', text: JSON.stringify(reversed(body)) },
    { spelling: '\\u escapes', text: escaped(JSON.stringify(body)) },
  ];
}

/**
 * `byte_exactness` on one operation: a valid body in each equivalent spelling, signed over its own
 * bytes, must be accepted; the indented spelling signed over its re-serialized form must be
 * refused. All go to a resource of the first institution (for create, one new person: the first
 * spelling creates it, the others find it).
 */
export async function byteExactnessPhase(context: RunContext, operation: Operation): Promise<void> {
  const bodies = context.bodies.get(operation);
  if (!operation.secured || !bodies) return;
  const parameters = await subjectParameters(context, operation);
  if ('missing' in parameters) {
    context.results.skip('byte_exactness', operation.id, parameters.missing);
    return;
  }
  const validate = context.contract.validator(operation.body?.schema ?? {});
  const encoder = new TextEncoder();
  await runProperty(context, {
    phase: 'byte exactness',
    operation: operation.id,
    arbitrary: bodies,
    numRuns: 2,
    async execute(generated) {
      const body = freshIdentity(generated);
      fc.pre(validate(body) === true);
      const send = (text: string, signedText?: string) =>
        context.traffic.send(operation, {
          method: operation.method,
          target: targetOf(operation, parameters.values),
          ...(parameters.idFrom ? { idFrom: parameters.idFrom } : {}),
          body: encoder.encode(text),
          authorization:
            signedText === undefined
              ? { kind: 'signed', as: 'main' }
              : { kind: 'signed-text', text: encoder.encode(signedText) },
        });
      const evidence = new Map<Outcome, Exchange[]>();
      const outcomes: Outcome[] = [];
      const exchanges: Exchange[] = [];
      const spellings = equivalentSpellings(body);
      for (const { spelling, text } of spellings) {
        const exchange = await send(text);
        const outcome = acceptedAsSent(exchange, spelling);
        evidence.set(outcome, [exchange]);
        outcomes.push(outcome);
        exchanges.push(exchange);
      }
      const indented = spellings[0]?.text ?? '';
      const exchange = await send(indented, JSON.stringify(JSON.parse(indented)));
      const outcome = refusedReserialized(exchange);
      evidence.set(outcome, [exchange]);
      return {
        outcomes: [...outcomes, outcome],
        exchanges: [...exchanges, exchange],
        evidence,
        label: 'one valid body in several spellings',
      };
    },
  });
}
