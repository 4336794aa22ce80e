/**
 * The one rule for a test that needs a program of the machine (PostgreSQL, a browser, HAProxy):
 * where it is missing, the test FAILS in CI (`CI` set: `.ci/run` installs every one of them), with
 * the Debian package to install; elsewhere it is skipped, the same words in its name, so a
 * contributor sees what did not run and why instead of a quiet skip.
 */
import {
  beforeAll,
  describe,
  type SuiteFactory,
  type TestFunction,
  type TestOptions,
  test,
} from 'vitest';
import { chromiumUnavailableReason } from './chromium.ts';
import { haproxyUnavailableReason } from './haproxy.ts';
import { postgresUnavailableReason } from './postgres.ts';

/** A program of the machine a test may need. */
export type Requirement = 'postgres' | 'chromium' | 'haproxy';

const reasons: Record<Requirement, () => string | undefined> = {
  postgres: postgresUnavailableReason,
  chromium: chromiumUnavailableReason,
  haproxy: haproxyUnavailableReason,
};

/** Why `requirement` is missing here, naming the Debian package to install; undefined when present. */
export function missingReason(requirement: Requirement): string | undefined {
  return reasons[requirement]();
}

/** What becomes of a test whose requirement is missing: it fails (CI) or is skipped. */
function whenMissing(requirement: Requirement): { fail: boolean; reason: string } | undefined {
  const reason = missingReason(requirement);
  return reason === undefined ? undefined : { fail: Boolean(process.env.CI), reason };
}

/**
 * Why a suite that needs `requirement` is skipped here: the reason outside CI where the program
 * is missing; undefined where it is there, and under CI, where the suite runs and fails with that
 * reason (startPostgres, launchChromium and startHaproxy throw it). For a suite that keeps vitest's
 * own `describe.skipIf(skipped)(…)`, its name ending in `(skipped: <reason>)` as describeWith's.
 */
export function skippedFor(requirement: Requirement): string | undefined {
  const missing = whenMissing(requirement);
  return missing && !missing.fail ? missing.reason : undefined;
}

/**
 * `describe(name, [options,] factory)` for a suite that needs `requirement`: as it is where the
 * program is there; where it is missing, in CI every test of the suite fails with the reason,
 * elsewhere the suite is skipped with `(skipped: <reason>)` in its name.
 */
export function describeWith(
  requirement: Requirement,
  name: string,
  ...rest: [SuiteFactory] | [TestOptions, SuiteFactory]
): void {
  const [options, factory] = rest.length === 1 ? [{}, rest[0]] : rest;
  const missing = whenMissing(requirement);
  if (!missing) describe(name, options, factory);
  else if (!missing.fail) describe.skip(`${name} (skipped: ${missing.reason})`, options, factory);
  else {
    describe(name, options, (suite) => {
      beforeAll(() => {
        throw new Error(missing.reason);
      });
      return factory(suite);
    });
  }
}

/**
 * `test(name, [options,] fn)` for one test that needs `requirement`: as it is where the program
 * is there; where it is missing, it fails with the reason in CI, and elsewhere is skipped with
 * `(skipped: <reason>)` in its name.
 */
export function testWith(
  requirement: Requirement,
  name: string,
  ...rest: [TestFunction] | [TestOptions, TestFunction]
): void {
  const [options, fn] = rest.length === 1 ? [{}, rest[0]] : rest;
  const missing = whenMissing(requirement);
  if (!missing) test(name, options, fn);
  else if (!missing.fail) test.skip(`${name} (skipped: ${missing.reason})`, options, fn);
  else {
    test(name, options, () => {
      throw new Error(missing.reason);
    });
  }
}
