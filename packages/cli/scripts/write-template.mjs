#!/usr/bin/env node
// Writes templates/customers.csv, the import's template, from the bundled spec (the build runs
// it after tsc): every column of UserInput and the spec's request examples, so the template
// follows the contract. Generated, never committed; the package ships it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { openapiDocument } from '@institution-api/types';
import { templateCsv } from '../dist/import/template.js';

const templates = new URL('../templates/', import.meta.url);
mkdirSync(templates, { recursive: true });
writeFileSync(new URL('customers.csv', templates), templateCsv(openapiDocument));
