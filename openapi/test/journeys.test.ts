/**
 * The docs show the journeys beside the operations: the "Journeys" section of info.description
 * renders each Arazzo workflow of workflows/ (its title, file, workflow and steps in order), and
 * each operation's description links the journeys that take it as a step. Checked against the
 * workflow files, so the page cannot drift from what Respect runs (e2e/test/spec/workflows.system.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { spec } from './spec.js';

interface Workflow {
  workflowId: string;
  steps: { stepId: string; operationId: string }[];
}
interface ArazzoDocument {
  arazzo: string;
  info: { title: string };
  sourceDescriptions: { name: string; url: string; type: string }[];
  workflows: Workflow[];
}

const folder = fileURLToPath(new URL('../workflows/', import.meta.url));
const documents = readdirSync(folder)
  .filter((file) => file.endsWith('.arazzo.yaml'))
  .map((file) => ({
    file,
    document: parse(readFileSync(join(folder, file), 'utf8')) as ArazzoDocument,
  }));

const description = spec.info.description;
const journeysSection = description.slice(
  description.indexOf('# Journeys\n'),
  description.indexOf('# Assumptions\n'),
);

/** The anchor Redoc 3 gives a `## title` of the Journeys section. */
const anchorOf = (title: string) =>
  `#/section/journeys/${title.toLowerCase().replaceAll(' ', '-')}`;

/** The operation a step calls: `$sourceDescriptions.<name>.<operationId>` or a bare id. */
const operationOf = (step: { operationId: string }) => step.operationId.split('.').at(-1) ?? '';

describe('the Arazzo workflows', () => {
  it('are six Arazzo 1.0.1 documents of one workflow each, on this spec', () => {
    expect(documents).toHaveLength(6);
    for (const { file, document } of documents) {
      expect(document.arazzo, file).toBe('1.0.1');
      expect(document.workflows, file).toHaveLength(1);
      for (const source of document.sourceDescriptions) {
        expect(source, file).toMatchObject({ url: '../openapi.yaml', type: 'openapi' });
      }
    }
  });
});

describe('the Journeys section of the docs', () => {
  it.each(documents.map(({ file, document }) => [document.info.title, file, document] as const))(
    'renders "%s" (%s): its file, its workflow and its steps in order',
    (title, file, document) => {
      const start = journeysSection.indexOf(`\n## ${title}\n`);
      expect(start, `no "## ${title}" in the Journeys section`).toBeGreaterThan(0);
      const next = journeysSection.indexOf('\n## ', start + 1);
      const section = journeysSection.slice(start, next === -1 ? undefined : next);
      const [workflow] = document.workflows;
      expect(section).toContain(`\`${file}\`, workflow \`${workflow?.workflowId}\``);
      const items = section.split(/\n\d+\. /).slice(1);
      expect(items.map((item) => /^`(\w+)`/.exec(item)?.[1])).toEqual(
        workflow?.steps.map(operationOf),
      );
    },
  );

  it('names no journey without a workflow', () => {
    const titles = [...journeysSection.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(titles.sort()).toEqual(documents.map(({ document }) => document.info.title).sort());
  });

  it.each(['createUser', 'updateUser'])(
    "links from %s's description to exactly the journeys that take it",
    (operationId) => {
      const operation = Object.values(spec.paths)
        .flatMap((item) => Object.values(item as Record<string, { operationId?: string }>))
        .find((candidate) => candidate.operationId === operationId) as { description: string };
      const linked = [...operation.description.matchAll(/\]\((#\/section\/journeys\/[^)]+)\)/g)]
        .map((match) => match[1])
        .sort();
      const expected = documents
        .filter(({ document }) =>
          document.workflows.some((workflow) =>
            workflow.steps.some((step) => operationOf(step) === operationId),
          ),
        )
        .map(({ document }) => anchorOf(document.info.title))
        .sort();
      expect(linked).toEqual(expected);
    },
  );
});
