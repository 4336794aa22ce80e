// orval: the fetch client (every call through `orvalFetch`, which signs) and zod schemas from the
// bundled spec. `generateEachHttpStatus`: a schema per answer, the problems included.
// `dateTimeOptions.offset`: RFC 3339 date-times may carry an offset (`+00:00`), which zod's
// `iso.datetime()` rejects unless told. `strict`: the spec's objects are closed
// (additionalProperties: false), which orval's zod objects are only when asked.
export default {
  api: {
    input: { target: './openapi.json' },
    output: {
      target: './generated/api.ts',
      client: 'fetch',
      mode: 'single',
      baseUrl: { getBaseUrlFromSpecification: true },
      override: { mutator: { path: './orval-fetch.ts', name: 'orvalFetch' } },
    },
  },
  zod: {
    input: { target: './openapi.json' },
    output: {
      target: './generated/zod.ts',
      client: 'zod',
      mode: 'single',
      override: {
        zod: {
          generateEachHttpStatus: true,
          dateTimeOptions: { offset: true },
          strict: { body: true, response: true },
        },
      },
    },
  },
};
