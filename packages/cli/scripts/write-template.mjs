#!/usr/bin/env node
// @ts-check
// Writes templates/customers.csv, the import's template, from the bundled spec (the build runs
// it after tsc): every column of UserInput and the spec's request examples, so the template
// follows the contract. Generated, never committed; the package ships it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { openapiDocument } from '@institution-api/types';

// The build's output, typed by its source (the CLI's build writes no declarations).
/** @type {typeof import('../src/import/template.ts')} */
const { templateCsv } = await import(new URL('../dist/import/template.js', import.meta.url).href);

const templates = new URL('../templates/', import.meta.url);
mkdirSync(templates, { recursive: true });
writeFileSync(new URL('customers.csv', templates), templateCsv(openapiDocument));
