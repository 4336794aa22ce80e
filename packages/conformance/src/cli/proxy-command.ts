import { appendFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CheckId } from '../checks/catalog.js';
import { startProxy, type Violation } from '../proxy/proxy-server.js';
import { junitXml } from '../report/junit.js';
import { readContract } from '../spec/contract.js';
import { loadSpec, SpecError } from '../spec/load-spec.js';
import type { CliIo } from './io.js';
import { baseUrl, UsageError, wholeNumber } from './usage-error.js';

/** The proxy's port when none is given (the reference server's 8080 and the docs' 8081 are taken). */
export const DEFAULT_PROXY_PORT = 8090;

/**
 * `institution-api-conformance proxy`: listens until `io.stop` aborts, then prints a summary and
 * resolves to 0 when it saw no violation, 1 otherwise.
 */
export async function proxyCommand(args: string[], io: CliIo): Promise<number> {
  let values: ReturnType<typeof parse>;
  try {
    values = parse(args);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const target = baseUrl('--target', values.target);
  const port = wholeNumber('--port', values.port, { allowZero: true }) ?? DEFAULT_PROXY_PORT;
  if (port > 65535) throw new UsageError('--port must be at most 65535');
  let document: Awaited<ReturnType<typeof loadSpec>>;
  try {
    document = await loadSpec(values.spec);
  } catch (error) {
    if (error instanceof SpecError) throw new UsageError(error.message);
    throw error;
  }
  const contract = readContract(document);
  const started = Date.now();
  const counts = new Map<
    string,
    { check: CheckId; operation: string; passed: number; violations: Violation[] }
  >();
  let exchanges = 0;
  const seen = new WeakSet<object>();
  if (values.report) writeFileSync(values.report, '', { flag: 'a' });
  const proxy = await startProxy({
    contract,
    target,
    host: values.host ?? '127.0.0.1',
    port,
    onOutcome(outcome, where) {
      if (!seen.has(where)) {
        seen.add(where);
        exchanges++;
      }
      const key = `${outcome.check} ${outcome.operation}`;
      const entry = counts.get(key) ?? {
        check: outcome.check,
        operation: outcome.operation,
        passed: 0,
        violations: [],
      };
      counts.set(key, entry);
      if (outcome.ok) {
        entry.passed++;
        return;
      }
      const violation: Violation = { ...outcome, ...where };
      entry.violations.push(violation);
      io.stdout(
        `✖ ${outcome.check} · ${outcome.operation} · ${where.method} ${where.path} → ${where.status ?? 'no answer'}: ${outcome.message}\n`,
      );
      if (values.report) {
        appendFileSync(
          values.report,
          `${JSON.stringify({ ...violation, time: new Date().toISOString() })}\n`,
        );
      }
    },
  });
  io.stdout(`listening on ${proxy.url} (forwarding to ${target})\n`);
  await new Promise<void>((resolve) => {
    if (io.stop?.aborted) resolve();
    io.stop?.addEventListener('abort', () => resolve(), { once: true });
  });
  await proxy.close();
  const entries = [...counts.values()].sort(
    (a, b) => a.check.localeCompare(b.check) || a.operation.localeCompare(b.operation),
  );
  const violations = entries.reduce((total, entry) => total + entry.violations.length, 0);
  io.stdout(`\n${exchanges} exchange(s) checked, ${violations} violation(s)\n`);
  for (const entry of entries) {
    io.stdout(
      `  ${entry.violations.length > 0 ? '✖' : '✔'} ${entry.check} · ${entry.operation}: ${entry.passed} passed, ${entry.violations.length} violation(s)\n`,
    );
  }
  if (values.junit) {
    const cases = entries.map((entry) => ({
      check: entry.check,
      operation: entry.operation,
      ...(entry.violations.length > 0
        ? {
            failure: {
              message: entry.violations[0]?.message ?? 'violated',
              details: entry.violations
                .map(
                  (violation) =>
                    `${violation.method} ${violation.path} → ${violation.status}: ${violation.message}`,
                )
                .join('\n'),
            },
          }
        : {}),
    }));
    writeFileSync(values.junit, junitXml(cases, (Date.now() - started) / 1000));
  }
  return violations === 0 ? 0 : 1;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    options: {
      target: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      report: { type: 'string' },
      junit: { type: 'string' },
      spec: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}
