/**
 * The formats of {@link createSpecSchemas} as one plain object, without Ajv itself: what the
 * standalone validators it writes (`SpecSchemas.standaloneModule`) import at run time, so a
 * validator compiled at build time checks every format exactly as the server does.
 *
 * @module
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { specFormats } from './formats.js';

/** OpenAPI number formats that ajv-formats does not define (OAS 3.1 §4.2, "Data Types"). */
export const numberFormats = {
  int32: {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  },
  int64: { type: 'number', validate: (n: number) => Number.isInteger(n) },
  float: { type: 'number', validate: Number.isFinite },
  double: { type: 'number', validate: Number.isFinite },
} as const;

/**
 * Every format the spec's validators know, by name: ajv-formats' full set, narrowed by
 * {@link specFormats} (a `date` is a real calendar day from 0001-01-01), plus
 * {@link numberFormats}. `createSpecSchemas` registers exactly these.
 */
export const specAjvFormats = { ...fullFormats, ...specFormats, ...numberFormats };
