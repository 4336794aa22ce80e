import { type OpenApiDocument, openapiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import { contractHeaderFields } from '../../src/http/index.js';

describe('contractHeaderFields', () => {
  it("reads the spec's: the scheme's Authorization, Content-Type, every header parameter; the documented answers' fields", () => {
    expect(contractHeaderFields(openapiDocument)).toEqual({
      request: [
        'Authorization',
        'Content-Type',
        'Prefer',
        'Signature-Input',
        'Signature',
        'Content-Digest',
      ],
      response: expect.arrayContaining([
        'Retry-After',
        'RateLimit',
        'RateLimit-Policy',
        'Access-Control-Allow-Origin',
        'Access-Control-Expose-Headers',
      ]),
    });
  });

  it('follows references, path-level parameters and every method; each name once, whatever its case', () => {
    const document: OpenApiDocument = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/things/{id}': {
          parameters: [{ name: 'id', in: 'path' }, { $ref: '#/components/parameters/Trace' }],
          get: {
            parameters: [
              { name: 'X-Page', in: 'header' },
              { name: 'q', in: 'query' },
            ],
          },
          delete: {
            parameters: [{ name: 'traceparent', in: 'header' }],
            responses: { '204': { $ref: '#/components/responses/Gone' } },
          },
        },
      },
      components: {
        securitySchemes: { Bearer: { type: 'http', scheme: 'bearer' } },
        parameters: { Trace: { name: 'Traceparent', in: 'header' } },
        responses: { Gone: { headers: { 'X-Left': { schema: { type: 'string' } } } } },
      },
    };
    expect(contractHeaderFields(document)).toEqual({
      request: ['Authorization', 'Traceparent', 'X-Page'],
      response: ['X-Left'],
    });
  });
});
