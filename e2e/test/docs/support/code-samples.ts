import { readFileSync } from 'node:fs';

/** One `x-codeSamples` entry of an operation, with the operation it documents. */
export interface CodeSample {
  operationId: string;
  method: string;
  path: string;
  lang: string;
  label: string | undefined;
  source: string;
}

interface Operation {
  operationId?: string;
  'x-codeSamples'?: { lang: string; label?: string; source: string }[];
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Every operation of a bundled spec (JSON) with its code samples, in document order. Operations
 * without samples are listed with none, so a test can insist that each one has them.
 */
export function readOperations(
  specFile: string | URL,
): { operationId: string; method: string; path: string; samples: CodeSample[] }[] {
  const spec = JSON.parse(readFileSync(specFile, 'utf8')) as {
    paths: Record<string, Record<string, Operation>>;
  };
  return Object.entries(spec.paths).flatMap(([path, item]) =>
    methods
      .filter((method) => item[method] !== undefined)
      .map((method) => {
        const operation = item[method] as Operation;
        const operationId = operation.operationId ?? `${method} ${path}`;
        return {
          operationId,
          method,
          path,
          samples: (operation['x-codeSamples'] ?? []).map((sample) => ({
            operationId,
            method,
            path,
            lang: sample.lang,
            label: sample.label,
            source: sample.source,
          })),
        };
      }),
  );
}

/** A fenced code block of the landing text (`info.description`). */
export interface MarkdownCodeBlock {
  lang: string;
  source: string;
}

/**
 * The fenced code blocks under one `# Heading` of a bundled spec's `info.description` (the landing
 * text), in order, so the tests can run what the page shows.
 */
export function landingCodeBlocks(specFile: string | URL, heading: string): MarkdownCodeBlock[] {
  const spec = JSON.parse(readFileSync(specFile, 'utf8')) as { info: { description: string } };
  const sections = spec.info.description.split(/^# /m);
  const section = sections.find((candidate) => candidate.startsWith(`${heading}\n`));
  if (!section) throw new Error(`no "# ${heading}" section in info.description of ${specFile}`);
  return [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1] ?? '',
    source: match[2] ?? '',
  }));
}
