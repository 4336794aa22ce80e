import { CHECKS } from '../checks/catalog.js';
import type { Credentials } from '../http/authorization.js';
import type { Contract } from '../spec/contract.js';
import { bodyArbitraries } from './bodies.js';
import { linksOf } from './links.js';
import { statefulPlanned } from './phases/stateful.js';
import { RUN_DEFAULTS, type RunOptions } from './run-conformance.js';

/**
 * What a run would do, for `--dry-run`: the service, the contract, the institutions (public keys
 * only), the budget, and per operation the phases, their examples and the checks they feed. The
 * generators are built, so an unsupported schema fails here too; nothing is sent.
 */
export function planText(
  contract: Contract,
  options: Omit<RunOptions, 'document'>,
  specSource: string,
): string {
  const bodies = bodyArbitraries(contract);
  const examples = options.maxExamples ?? RUN_DEFAULTS.maxExamples;
  const { credentials } = options;
  const lines = [
    'Plan (--dry-run: nothing is sent):',
    `  service:      ${options.baseUrl}`,
    `  contract:     ${contract.document.info.title} ${contract.document.info.version} (${specSource})`,
    `  institutions: first ${credentials.main.publicKey}; ${secondText(credentials)}`,
    `  seed ${options.seed}; at most ${options.maxRequests ?? RUN_DEFAULTS.maxRequests} requests, ${options.timeBudgetSeconds ?? RUN_DEFAULTS.timeBudgetSeconds} s, ${(options.rate ?? RUN_DEFAULTS.rate) || 'unlimited'} requests per second, one at a time`,
  ];
  for (const operation of contract.operations) {
    lines.push(`  ${operation.id} (${operation.method} ${operation.path}):`);
    if (!bodies.has(operation)) {
      lines.push('    answers checked only (no JSON body to generate)');
      continue;
    }
    const links = linksOf(contract, operation);
    if (links.length > 0) {
      lines.push(
        `    ${links.map((link) => `{${link.parameter}}: the ${link.property} ${link.producer.id} answers for a new resource`).join('; ')}`,
      );
    }
    lines.push(
      `    valid data:     ${examples} examples, a third with a boundary edit (positive_data_acceptance)`,
    );
    lines.push(
      `    invalid data:   ${examples * 2} examples, one labelled mutation each (negative_data_rejection)`,
    );
    if (operation.secured) {
      lines.push('    authentication: 2 bodies × 6 ways of failing it (auth_enforcement)');
      if (options.messageSignatures) {
        lines.push(
          '    message signatures: 5 checks × a request accepted, then tampered with and without its signature (message_signature_*)',
        );
      }
      lines.push('    byte exactness: 2 bodies × 4 spellings (byte_exactness)');
    }
  }
  const stateful = statefulPlanned(contract, examples, credentials.other !== undefined);
  lines.push(`  sequences: ${stateful}`);
  lines.push(
    `  every answer: ${(['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_schema_conformance', 'response_headers_conformance'] as const).join(', ')}`,
  );
  lines.push(
    `  failures shrink (more requests, within the budget); ${Object.keys(CHECKS).length - 1} checks in all (see --help and the README).`,
  );
  return `${lines.join('\n')}\n`;
}

function secondText(credentials: Credentials) {
  return credentials.other
    ? `second ${credentials.other.publicKey}`
    : 'no second institution (stateful_institution_scope is skipped)';
}
