/**
 * MSW handlers (MSW 2 or later) that behave like the service: the mock service of
 * `@institution-api/mock/service` behind `http.all`, and typed overrides.
 *
 * @module
 */
import { type HttpHandler, http } from 'msw';
import {
  createMockService,
  type MockService,
  type MockServiceOptions,
  type RoutedRequest,
} from '../service/mock-service.js';
import { crossOriginRefusal } from './cross-origin.js';
import {
  type DocumentedAnswer,
  type OperationId,
  operationRoute,
  toResponse,
} from './documented-answer.js';

/** Options of {@link createMockHandlers}. */
export interface MockHandlersOptions extends Omit<MockServiceOptions, 'basePath'> {
  /** Where the API is, as the client is given it: `https://api.example.test`, `http://localhost:4010`. */
  baseUrl: string;
  /**
   * The origins of the pages the service lets call it (its `CORS_ALLOW_ORIGINS`:
   * `https://app.example.com`, no path): a request from a page of any other origin than these
   * and the base URL's fails as the browser would fail it, with a network error. Unset: no
   * check, since MSW answers before the browser checks CORS.
   */
  allowedOrigins?: readonly string[];
}

/** What a resolver of an override gets. */
export interface OverrideInfo {
  request: Request;
  /** The path parameters (`id`), as MSW matched them. */
  params: Record<string, string | readonly string[] | undefined>;
}

/** The handlers of a mock, and what to do with them. */
export interface MockHandlers {
  /** For `setupServer(...handlers)` (Node) or `setupWorker(...handlers)` (browsers). */
  handlers: HttpHandler[];
  /** Forgets every user and nonce: call it between tests (`afterEach`). */
  reset(): void;
  /** The service behind the handlers (its users: `service.directory`). */
  service: MockService;
  /**
   * A handler of your own for `operation` at this base URL, answering what `resolver` returns: a
   * {@link DocumentedAnswer}, so only what the spec allows compiles. Use it with
   * `server.use(...)`; it answers without checking the signature.
   */
  override<Op extends OperationId>(
    operation: Op,
    resolver: (info: OverrideInfo) => DocumentedAnswer<Op> | Promise<DocumentedAnswer<Op>>,
  ): HttpHandler;
}

/**
 * MSW handlers for both operations of the spec at `baseUrl`, stateful and in memory, with the
 * service's semantics (the one model, `@institution-api/runtime/model`), its signature checks, its
 * request validation and its problems, and `Prefer: code=NNN` to force a documented answer.
 * Every other path under `baseUrl` answers as the service does (`404`, `405`).
 */
export function createMockHandlers(options: MockHandlersOptions): MockHandlers {
  const base = new URL(options.baseUrl);
  const origin = options.baseUrl.replace(/\/+$/, '');
  const service = createMockService({ ...options, basePath: base.pathname });
  const refused = options.allowedOrigins
    ? crossOriginRefusal(options.baseUrl, options.allowedOrigins)
    : undefined;
  const handlers = [serviceHandler(service, `${origin}/*`, refused ? { refused } : {})];
  return {
    handlers,
    service,
    reset: () => service.reset(),
    override: (operation, resolver) => overrideHandler(origin, operation, resolver, refused),
  };
}

/**
 * The one MSW handler of a mock service: every request matching `path` (an MSW path: `*` for any
 * URL) is answered by `service`, routed as `routed` says when given (the mock server's, for the
 * one request it handles) or else by the request's URL; one that `refused` says the browser would
 * refuse (CORS) is a network error.
 */
export function serviceHandler(
  service: MockService,
  path: string,
  { routed, refused }: { routed?: RoutedRequest; refused?: (request: Request) => boolean } = {},
): HttpHandler {
  return http.all(path, ({ request }) =>
    refused?.(request) ? Response.error() : service.handle(request, routed),
  );
}

/**
 * A handler for `operation` at `baseUrl` answering what `resolver` returns (see
 * {@link MockHandlers.override}); a request that `refused` says the browser would refuse (CORS)
 * is a network error.
 */
export function overrideHandler<Op extends OperationId>(
  baseUrl: string,
  operation: Op,
  resolver: (info: OverrideInfo) => DocumentedAnswer<Op> | Promise<DocumentedAnswer<Op>>,
  refused?: (request: Request) => boolean,
): HttpHandler {
  const { method, template } = operationRoute(operation);
  const path = `${baseUrl.replace(/\/+$/, '')}${template.replace(/\{([^}]+)\}/g, ':$1')}`;
  return http[method as 'post' | 'put'](path, async ({ request, params }) =>
    refused?.(request)
      ? Response.error()
      : toResponse(
          await resolver({ request, params: params as Record<string, string | undefined> }),
        ),
  );
}
