import { createRequire } from 'node:module';

type PathToRegexp = (
  path: string,
  options?: Record<string, unknown>,
) => { regexp: RegExp; keys: unknown[] };

interface PathToRegexpModule {
  pathToRegexp: PathToRegexp & { [cached]?: CacheStats };
}

/** How often the cached `pathToRegexp` compiled and how often it answered from its cache. */
export interface CacheStats {
  compiled: number;
  reused: number;
}

const cached = Symbol.for('institution-api.route-matcher-cache');

/**
 * Matchers kept at most: express-openapi-validator only asks for the spec's own paths (two
 * here), so the bound only matters if something else in the process calls `pathToRegexp`.
 */
const maxEntries = 1_000;

/**
 * express-openapi-validator 5.6 finds a request's operation by compiling every spec path with
 * `path-to-regexp` on every request, then throwing the matchers away: 8 % of the HTTP layer's CPU
 * in a profile. The compiled matcher depends only on the path and the options, so this
 * memoizes `pathToRegexp` on the very module instance the validator resolves, which it reads at
 * each call. The result is used read-only there (`regexp.exec`, `keys.map`) and its RegExp has no
 * `g` or `y` flag, so sharing it is safe; what matches is unchanged.
 *
 * Upstream: cdimascio/express-openapi-validator#1217 ("perf: cache route matchers") caches them
 * itself; once a release has it, `test/http/validation/route-matcher-cache.test.ts` fails (the
 * validator no longer calls this), and this file should go.
 *
 * Idempotent: a second call returns the stats of the first.
 */
export function cacheValidatorRouteMatchers(): CacheStats {
  const validatorRequire = createRequire(
    createRequire(import.meta.url).resolve('express-openapi-validator'),
  );
  const module = validatorRequire('path-to-regexp') as PathToRegexpModule;
  const installed = module.pathToRegexp[cached];
  if (installed) return installed;

  const compile = module.pathToRegexp;
  const matchers = new Map<string, ReturnType<PathToRegexp>>();
  const stats: CacheStats = { compiled: 0, reused: 0 };
  const memoized: PathToRegexpModule['pathToRegexp'] = (path, options = {}) => {
    // Only string paths with the plain options are cached (an `encodePath` function is not).
    if (typeof path !== 'string' || options.encodePath !== undefined) {
      return compile(path, options);
    }
    const { sensitive, strict, end, trailing, delimiter } = options;
    const key = `${path}\u0000${sensitive}\u0000${strict}\u0000${end}\u0000${trailing}\u0000${delimiter}`;
    const hit = matchers.get(key);
    if (hit) {
      stats.reused += 1;
      return hit;
    }
    const matcher = compile(path, options);
    if (matchers.size >= maxEntries) matchers.clear();
    matchers.set(key, matcher);
    stats.compiled += 1;
    return matcher;
  };
  memoized[cached] = stats;
  module.pathToRegexp = memoized;
  return stats;
}
