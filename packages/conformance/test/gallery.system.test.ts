/**
 * No false negatives: every deliberately broken implementation of the gallery is caught by `run`
 * with a fixed seed within the default budget. Each fault sits in front of one reference server
 * (test/support/gallery.ts); the figures (requests until caught, size of the shrunk example) are
 * printed as a table at the end.
 */

import type { OpenApiDocument } from '@institution-api/types';
import { openapiDocument } from '@institution-api/types';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformance } from '../src/run/run-conformance.js';
import { startFaultyServer } from './support/faulty-server.js';
import { CREDENTIALS, GALLERY } from './support/gallery.js';
import { suiteServer } from './support/suite-server.js';

const SEED = 18;
const rows: string[] = [];

const schemas = (openapiDocument as OpenApiDocument).components.schemas as Record<
  string,
  { properties: Record<string, unknown> }
>;
const spec = {
  userInputProperties: Object.keys(schemas.UserInput?.properties ?? {}),
  kycProperties: Object.keys(schemas.Kyc?.properties ?? {}),
};

const server = suiteServer();
afterAll(() => {
  console.log(
    [
      `gallery (seed ${SEED}, default budget):`,
      '| fault | caught by | requests until caught | shrunk example (bytes) | all checks failed |',
      '|---|---|---:|---:|---|',
      ...rows,
    ].join('\n'),
  );
});

describe('the gallery of broken implementations', () => {
  it.each(GALLERY)('catches: $name', { timeout: 180_000 }, async ({ name, caughtBy, fault }) => {
    const faulty = await startFaultyServer(server().url, fault(spec));
    try {
      const report = await runConformance({
        baseUrl: faulty.url,
        document: openapiDocument,
        seed: SEED,
        rate: 0,
        credentials: { main: CREDENTIALS[0], other: CREDENTIALS[1] },
        // The first finding is the one the row names; the checks after it would add nothing.
        failFast: true,
      });
      const failed = report.results.filter((result) => result.failure);
      const caught = failed
        .filter((result) => caughtBy.includes(result.check))
        .sort(
          (a, b) => (a.failure?.requestsUntilCaught ?? 0) - (b.failure?.requestsUntilCaught ?? 0),
        )[0];
      const bytes = caught?.failure?.exchanges.reduce(
        (total, exchange) => total + (exchange.request.body?.length ?? 0),
        0,
      );
      rows.push(
        `| ${name} | ${caught ? `${caught.check} (${caught.operation})` : 'NOT CAUGHT'} | ${caught?.failure?.requestsUntilCaught ?? '–'} | ${bytes ?? '–'} | ${[...new Set(failed.map((result) => result.check))].join(', ')} |`,
      );
      expect(
        caught,
        `${name}: failed ${failed.map((result) => result.check).join(', ') || 'nothing'}`,
      ).toBeDefined();
      // It stopped there: the first failing exchange ended the run.
      expect(report.stopped).toMatch(/\(--fail-fast\)$/);
    } finally {
      await faulty.close();
    }
  });
});
