#!/usr/bin/env node
// `npm run measure:diagnosis`: the corpus of real mistakes integrators make when they sign
// (e2e/test/diagnosis/corpus.ts, programs in Python, PHP, Go, Java and Node) run against the
// reference server's sandbox and `institution-api doctor`; prints, per class of mistake, how many
// cases both named with the right cause and the words that say what to change, partly, or not,
// and any false statement, and writes the table to its section of bench/figures.md
// (BENCH_FIGURES=0: printed only). CORPUS_ONLY=<substring of a case id> runs some cases only;
// CORPUS_VERBOSE=1 prints what was missing for each case not named.
import { caseId } from '../e2e/test/diagnosis/corpus.ts';
import { classTable, classTableMarkdown, runCorpus } from '../e2e/test/diagnosis/run-corpus.ts';
import { writeFiguresSection } from './lib/figures-file.mjs';

const only = process.env.CORPUS_ONLY;
const verbose = process.env.CORPUS_VERBOSE === '1';

const started = Date.now();
const run = await runCorpus('sandbox', {
  only: only ? (mistake) => caseId(mistake).includes(only) : undefined,
});
const table = classTable(run.results);

for (const { control, run: controlRun } of run.controls) {
  const accepted = controlRun.statuses.at(-1) === 201 && controlRun.doctor?.code === 0;
  if (!accepted) {
    console.error(
      `control ${control.language}/${control.name} (${control.uses}) was not accepted: ` +
        `${controlRun.statuses.join(', ')}, doctor exit ${controlRun.doctor?.code}\n${controlRun.programOutput}`,
    );
  }
}
for (const { mistake, run: caseRun, judgement } of run.results) {
  if (!judgement) continue;
  const falseStatements = judgement.falseStatements.length
    ? ` FALSE: ${judgement.falseStatements.join('; ')}`
    : '';
  if (judgement.verdict !== 'named' || falseStatements) {
    console.error(`${judgement.verdict.padEnd(6)} ${caseId(mistake)}${falseStatements}`);
    if (verbose) {
      console.error(`         sandbox missing: ${judgement.sandbox.missing.join('; ') || '-'}`);
      console.error(`         doctor missing:  ${judgement.doctor.missing.join('; ') || '-'}`);
      if (caseRun.statuses.length === 0) console.error(caseRun.programOutput);
    }
  }
}

const percent = (share) => `${(share * 100).toFixed(0)} %`;
const markdown = `${classTableMarkdown(table)}

Named (the sandbox's \`diagnosis\` and the doctor both give the right cause and the words that say
what to change): **${table.total.named} of ${table.total.n}, ${percent(table.total.share)}** (target ≥ 85 %);
cases with a false statement: **${table.falseStatements}** (target 0). Each case is a program in
Python 3.11, PHP 8.2, Go 1.19, Java 17 or Node (fetch, http-message-signatures, http-message-sig)
sent through a capturing proxy to the reference server in its sandbox mode; the captured request
is given to \`institution-api doctor\`.`;

console.log(`\n${markdown}\n\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
if (process.env.BENCH_FIGURES !== '0' && !only) {
  writeFiguresSection('diagnosis-corpus', {
    title: 'Diagnosis of real signing mistakes',
    command: 'npm run measure:diagnosis',
    body: markdown,
  });
}
