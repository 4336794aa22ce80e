// @hey-api/openapi-ts: the fetch client, the SDK and zod schemas from the bundled spec.
// `dates.offset`: the spec's date-times are RFC 3339, which allows an offset (`+00:00`); zod's
// `iso.datetime()` rejects one unless told.
export default {
  input: 'openapi.json',
  output: 'generated',
  plugins: [
    '@hey-api/client-fetch',
    '@hey-api/typescript',
    '@hey-api/sdk',
    { name: 'zod', dates: { offset: true } },
  ],
};
