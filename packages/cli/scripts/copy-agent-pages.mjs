#!/usr/bin/env node
// @ts-check
// Copies the docs for agents that apps/docs builds from the spec (llms.txt and its Markdown
// pages, llmstxt.org) into dist/agent-pages/, which `institution-api mcp` offers as resources
// beside the spec. Run by the build after tsc; the docs workspace, a devDependency, is built
// first (turbo's ^build). Generated, never committed; the package ships it.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const index = fileURLToPath(import.meta.resolve('@institution-api/docs/llms.txt'));
const pages = fileURLToPath(new URL('llms/', `file://${index}`));
const target = new URL('../dist/agent-pages/', import.meta.url);
rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
cpSync(index, fileURLToPath(new URL('llms.txt', target)));
cpSync(pages, fileURLToPath(new URL('llms/', target)), { recursive: true });
