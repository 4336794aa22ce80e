import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { RequestHandler } from 'express';
import { HttpProblem, problemKinds } from './problem.js';

const require = createRequire(import.meta.url);

/** A file another workspace package publishes, or undefined when it cannot be resolved. */
function resolveFile(specifier: string): string | undefined {
  try {
    return require.resolve(specifier);
  } catch {
    return undefined;
  }
}

/** The bundled spec as `@institution-api/types` ships it. */
export const specFiles = {
  yaml: require.resolve('@institution-api/types/openapi.yaml'),
  json: require.resolve('@institution-api/types/openapi.json'),
};

/**
 * Where the docs page built by `@institution-api/docs` is: through its package exports when it
 * declares `./index.html`, else `dist/index.html` beside its package.json. Resolved once; whether
 * it exists is checked per request, so building the docs while the server runs is enough.
 */
export function defaultDocsPage(): string | undefined {
  const exported = resolveFile('@institution-api/docs/index.html');
  if (exported) return exported;
  const manifest = resolveFile('@institution-api/docs/package.json');
  return manifest && join(dirname(manifest), 'dist', 'index.html');
}

/** `GET /openapi.yaml` and `/openapi.json`: the spec this server enforces, unauthenticated. */
export function specFile(format: keyof typeof specFiles): RequestHandler {
  const mediaType = format === 'yaml' ? 'application/yaml' : 'application/json';
  return (_req, res, next) => {
    res.type(mediaType).sendFile(specFiles[format], (error) => error && next(error));
  };
}

/**
 * `GET /docs`: the self-contained Redoc page of `@institution-api/docs`, or a 404 problem that
 * says how to build it.
 */
export function docsPage(file: string | undefined): RequestHandler {
  return docsFile(file, 'html', 'The docs page');
}

/**
 * The files the docs publish beside their page, served at the root as `/openapi.yaml` is: the
 * page at `/docs` links them relatively (`changelog.html`), as it does on disk. The changelog
 * holds the contract's changes per version (spec: Assumptions, "Changelog"); the Postman
 * collection is built from the spec and signs its own requests; `llms.txt` is the index of the
 * docs for agents (llmstxt.org), which links the pages of {@link agentPage}.
 */
export const docsSiblings = {
  'changelog.html': { type: 'html', what: 'The changelog page' },
  'institution-api.postman_collection.json': { type: 'json', what: 'The Postman collection' },
  'llms.txt': { type: 'txt', what: 'The index for agents (llms.txt)' },
} as const;

/**
 * The folder of the docs' Markdown pages for agents, beside the page, which `llms.txt` links
 * relatively (`llms/createUser.md`): one per operation of the spec and the signing guide, so
 * its files are served by name rather than listed here.
 */
export const agentPagesFolder = 'llms';

/** A page's file name in {@link agentPagesFolder}: nothing that could leave the folder. */
const agentPageName = /^[A-Za-z0-9][A-Za-z0-9_-]*\.md$/;

/**
 * `GET /llms/:name`: a Markdown page of the docs for agents, `text/markdown; charset=utf-8`; a
 * name that is no page's is an unknown path (`404`).
 */
export function agentPage(page: string | undefined): RequestHandler {
  return (req, res, next) => {
    const name = String(req.params.name ?? '');
    // Not such a page: on to the 404 of an unknown path (not the 405 of this route's others).
    if (page === undefined || !agentPageName.test(name)) return next('route');
    const file = join(dirname(page), agentPagesFolder, name);
    if (!existsSync(file)) return next('route');
    res.type('md').sendFile(file, (error) => error && next(error));
  };
}

/** Where `name` is when the docs page is `page`: beside it. */
export function docsSibling(page: string | undefined, name: keyof typeof docsSiblings) {
  return page && join(dirname(page), name);
}

/**
 * The headers of every page this server serves (the docs, whose console takes a secret key, and
 * the changelog): no other site may frame them, so none can overlay them to steer a click or a
 * key typed in (clickjacking). `frame-ancestors` works only in a header: a `<meta>` policy, as the
 * pages carry, ignores it; `X-Frame-Options` is for browsers older than CSP 2. A second policy
 * beside the page's own only restricts further.
 */
const pageHeaders = {
  'Content-Security-Policy': "frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
} as const;

/** A built file of the docs, or a 404 problem that says how to build it. */
export function docsFile(file: string | undefined, type: string, what: string): RequestHandler {
  return (_req, res, next) => {
    if (file === undefined || !existsSync(file)) {
      return next(
        new HttpProblem(
          problemKinds.notFound,
          `${what} is not built yet: run \`npm run build\` at the root of the repository.`,
        ),
      );
    }
    if (type === 'html') res.set(pageHeaders);
    res.type(type).sendFile(file, (error) => error && next(error));
  };
}
