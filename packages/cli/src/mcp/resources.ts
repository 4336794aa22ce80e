/**
 * What `institution-api mcp` offers an agent to read (MCP resources), besides its tools: the
 * bundled spec (`openapi.yaml`, `openapi.json`, from `@institution-api/types`) and the docs for
 * agents that the docs site builds from it (`llms.txt` and its Markdown pages, llmstxt.org),
 * which the CLI's build copies into `dist/agent-pages/`. Every URI is under
 * `institution-api://docs/`, laid out as the docs site serves them, so the relative links of
 * `llms.txt` (`llms/createUser.md`, `openapi.yaml`) resolve to resources of this server.
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Resource } from '@modelcontextprotocol/server';

/** The base of every resource's URI. */
export const resourceBase = 'institution-api://docs/';

/** One resource and its text. */
export interface DocResource {
  resource: Resource;
  text: string;
}

/** The docs for agents, where the build copies them (src/mcp and dist/mcp alike). */
const agentPages = new URL('../../dist/agent-pages/', import.meta.url);

/**
 * The resources, read once: the spec in both forms, then `llms.txt` and its pages. Throws when
 * the docs for agents are missing (a checkout whose CLI was not built).
 */
export function docResources(): DocResource[] {
  const require = createRequire(import.meta.url);
  const spec = (name: string) =>
    readFileSync(require.resolve(`@institution-api/types/${name}`), 'utf8');
  const page = (path: string) => readFileSync(new URL(path, agentPages), 'utf8');
  const pages = readdirSync(new URL('llms/', agentPages))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return [
    {
      resource: {
        uri: `${resourceBase}llms.txt`,
        name: 'llms.txt',
        title: 'The docs for agents (llms.txt)',
        description:
          'Start here: the operations, signing, and links to a Markdown page for each, generated from the spec.',
        mimeType: 'text/markdown',
      },
      text: page('llms.txt'),
    },
    ...pages.map((name) => ({
      resource: {
        uri: `${resourceBase}llms/${name}`,
        name: `llms/${name}`,
        title: `${name.replace(/\.md$/, '')} (Markdown page for agents)`,
        description: `A page of the docs for agents, linked from llms.txt.`,
        mimeType: 'text/markdown',
      },
      text: page(`llms/${name}`),
    })),
    {
      resource: {
        uri: `${resourceBase}openapi.yaml`,
        name: 'openapi.yaml',
        title: 'The OpenAPI 3.1 spec (YAML)',
        description: 'The bundled contract every tool and page is derived from.',
        mimeType: 'application/yaml',
      },
      text: spec('openapi.yaml'),
    },
    {
      resource: {
        uri: `${resourceBase}openapi.json`,
        name: 'openapi.json',
        title: 'The OpenAPI 3.1 spec (JSON)',
        description: 'The same contract as JSON.',
        mimeType: 'application/json',
      },
      text: spec('openapi.json'),
    },
  ];
}
