/**
 * The corpus of real signing mistakes (corpus.ts), each made by the ordinary code of Python, PHP,
 * Go, Java or Node (fetch, http-message-signatures, http-message-sig), sent through a capturing
 * proxy to the reference server and given to `institution-api doctor`:
 * - in the sandbox, each mistake gets the right cause and the words that say what to change from
 *   both (at least 85 % of them; the few the diagnosis leaves out say so in the corpus), and
 *   nothing either says is false;
 * - in production, every one gets the one uniform `401`, without a diagnosis;
 * - no answer, log line or doctor output holds a secret key, or 12 characters of one.
 * Right programs in each language are accepted and called valid by the doctor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseId, corpus } from './corpus.ts';
import {
  type CorpusRun,
  classTable,
  classTableMarkdown,
  runCorpus,
  secretsIn,
} from './run-corpus.ts';

let sandbox: CorpusRun;
let production: CorpusRun;

beforeAll(async () => {
  sandbox = await runCorpus('sandbox');
  production = await runCorpus('production');
}, 1_200_000);

afterAll(() => {
  if (sandbox) console.info(classTableMarkdown(classTable(sandbox.results)));
});

describe('right programs', () => {
  it('are accepted by the sandbox and production, and called valid by the doctor', () => {
    for (const { control, run } of sandbox.controls) {
      expect(run.statuses, `${caseId(control)} (${control.uses})\n${run.programOutput}`).toEqual([
        201,
      ]);
      expect(run.doctor?.code, `${caseId(control)}: ${run.doctor?.stdout}`).toBe(0);
    }
    for (const { control, run } of production.controls) {
      expect(run.statuses, caseId(control)).toEqual([201]);
    }
  });
});

describe('the sandbox and the doctor on each mistake', () => {
  it.each(corpus.map((mistake) => [caseId(mistake), mistake] as const))('%s', (id) => {
    const result = sandbox.results.find(({ mistake }) => caseId(mistake) === id);
    const judgement = result?.judgement;
    expect(
      judgement?.falseStatements,
      `${id}: what was said\n${result?.run.doctor?.stdout}`,
    ).toEqual([]);
    if (result?.mistake.undiagnosed) return;
    expect(
      judgement?.verdict,
      `${id}: sandbox missing ${judgement?.sandbox.missing.join('; ')}; doctor missing ${judgement?.doctor.missing.join('; ')}\n${JSON.stringify(result?.run.answer, null, 2)}\n${result?.run.doctor?.stdout}`,
    ).toBe('named');
  });

  it('name at least 85 % of the corpus', () => {
    const table = classTable(sandbox.results);
    expect(table.total.share, classTableMarkdown(table)).toBeGreaterThanOrEqual(0.85);
  });
});

describe('production', () => {
  it('answers every mistake with the one uniform 401, without a diagnosis', () => {
    const refusals = production.results.map(({ mistake, run }) => ({ id: caseId(mistake), run }));
    const bodies = new Set<string>();
    for (const { id, run } of refusals) {
      expect(run.statuses.at(-1), id).toBe(401);
      expect(run.answer, id).not.toHaveProperty('diagnosis');
      bodies.add(JSON.stringify(run.answer));
    }
    expect([...bodies]).toHaveLength(1);
  });
});

describe('secrets', () => {
  it('are in no answer, log line or doctor output', () => {
    for (const run of [sandbox, production]) {
      for (const { mistake, run: caseRun } of run.results) {
        const printed = `${caseRun.answers}\n${caseRun.doctor?.stdout ?? ''}${caseRun.doctor?.stderr ?? ''}`;
        expect(secretsIn(printed, run.keys), `${run.mode} ${caseId(mistake)}`).toEqual([]);
      }
      expect(secretsIn(run.serverOutput, run.keys), `${run.mode}'s log`).toEqual([]);
    }
  });
});
