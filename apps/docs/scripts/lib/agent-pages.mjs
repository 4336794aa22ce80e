/**
 * The docs for agents (llmstxt.org): `llms.txt`, an index in Markdown (an H1 title, a blockquote
 * summary, sections of `[name](url): note` links), and the Markdown pages it links, served beside
 * it: one per operation (its method and path, the body's fields with their rules, its answer's
 * shape beside the other one, every documented error, examples) and the signing guide (the seed's
 * header and RFC 9421, with a worked example whose bytes the build computes with
 * `@institution-api/signing`). Everything is read from the bundled spec: a field the spec adds is
 * on the pages with no change here. A pure function of the document.
 *
 * @module
 */

import {
  componentName,
  contentOf,
  dereference,
  mediaExamples,
  operationsOf,
  parametersOf,
  toJsonSchema,
} from '@institution-api/runtime/spec';
import {
  DEFAULT_SIGNATURE_LABEL,
  formatAuthorization,
  signatureBaseFor,
  signMessageSync,
  signSync,
} from '@institution-api/signing/node';

/**
 * @typedef {Record<string, any>} Json
 * @typedef {import('@institution-api/types').OpenApiDocument} OpenApiDocument
 */

/**
 * The fixed inputs of the signing guide's worked example: the spec's demo keys (fake), a fixed
 * time and nonce, so that the page's bytes are the same at every build. The body is the first
 * request example of `createUser`, as the client serializes it (`JSON.stringify`).
 */
export const workedExampleInputs = Object.freeze({
  publicKey: 'demo-public-key',
  secretKey: 'demo-secret-key-0123456789abcdef',
  /** 2026-01-01T00:00:00Z */
  created: 1767225600,
  nonce: 'd29ya2VkLWV4YW1wbGUtbm9uY2U',
  operationId: 'createUser',
});

/** Where the pages go, relative to `llms.txt` (and to `dist/`). */
export const agentPagesDirectory = 'llms';

/**
 * Every file of the docs for agents, by its path relative to `dist/`: `llms.txt`,
 * `llms/<operationId>.md` for each operation, `llms/signing.md`.
 *
 * @param {OpenApiDocument} document the bundled spec
 * @returns {Map<string, string>}
 */
export function agentPages(document) {
  const operations = namedOperations(document);
  const answerNames = [
    ...new Set(operations.flatMap((operation) => successSchemas(document, operation))),
  ];
  const pages = new Map();
  for (const operation of operations) {
    pages.set(
      `${agentPagesDirectory}/${operation.operationId}.md`,
      operationPage(document, operation, answerNames, operations),
    );
  }
  pages.set(`${agentPagesDirectory}/signing.md`, signingPage(document, operations));
  pages.set('llms.txt', index(document, operations));
  return pages;
}

/**
 * The operations that have an `operationId`, which names their page.
 *
 * @typedef {import('@institution-api/runtime/spec').SpecOperation & { operationId: string; operation: Json }} Operation
 * @param {OpenApiDocument} document
 * @returns {Operation[]}
 */
function namedOperations(document) {
  return operationsOf(document).flatMap((found) =>
    found.id === undefined ? [] : [{ ...found, operationId: found.id }],
  );
}

/**
 * @param {OpenApiDocument} document
 * @param {Operation[]} operations
 */
function index(document, operations) {
  const { info } = document;
  const lines = [
    `# ${info.title}`,
    '',
    `> ${oneLine(String(info.summary ?? info.title))}`,
    '',
    `Version ${info.version} of the contract. ${operations.length} operations, each signed with the institution's key pair: \`Authorization: <publicKey>:<HMAC-SHA256 of the body>\` and an RFC 9421 message signature (see Signing). An AI agent should not hold the secret key: \`npx institution-api mcp\` is an MCP server that signs inside and offers each operation as a tool named by its operationId.`,
    '',
    '## Operations',
    '',
    ...operations.map(
      ({ operationId, method, path, operation }) =>
        `- [${operation.summary ?? operationId}](${agentPagesDirectory}/${operationId}.md): \`${method.toUpperCase()} ${path}\` (\`${operationId}\`). ${firstSentence(operation.description)}`,
    ),
    '',
    '## Signing',
    '',
    `- [Signing requests](${agentPagesDirectory}/signing.md): the \`Authorization\` header (HMAC of the body) and RFC 9421 message signatures, with a worked example byte for byte`,
    '',
    '## Optional',
    '',
    '- [OpenAPI document (YAML)](openapi.yaml): the bundled OpenAPI 3.1 spec every page here is generated from',
    '- [OpenAPI document (JSON)](openapi.json): the same spec as JSON',
    "- [Changelog](changelog.html): the contract's changes, version by version (HTML)",
    '',
  ];
  return lines.join('\n');
}

/**
 * The schema names of an operation's success answers.
 *
 * @param {OpenApiDocument} document
 * @param {Operation} found
 * @returns {string[]}
 */
function successSchemas(document, { operation }) {
  return Object.entries(operation.responses ?? {})
    .filter(([status]) => /^2\d\d$/.test(status))
    .map(([, response]) =>
      componentName(contentOf(document, response)['application/json']?.schema, 'schemas'),
    )
    .filter((name) => name !== undefined);
}

/**
 * @param {OpenApiDocument} document
 * @param {Operation} found
 * @param {string[]} answerNames the answer schemas of every operation
 * @param {Operation[]} operations
 */
function operationPage(document, found, answerNames, operations) {
  const { operationId, method, path, operation } = found;
  const links = (/** @type {string} */ markdown) => pageLinks(markdown, operations);
  /** @type {Json[]} */
  const parameters = parametersOf(document, found);
  /** @type {Json} */
  const media = contentOf(document, operation.requestBody)['application/json'] ?? {};
  const bodyName = componentName(media.schema, 'schemas');
  const body = toJsonSchema(document, media.schema ?? {});
  const out = [
    `# ${operation.summary ?? operationId}`,
    '',
    `\`${method.toUpperCase()} ${path}\`, operationId \`${operationId}\`. Every request is signed: see [Signing requests](signing.md).`,
    '',
    links(String(operation.description ?? '')).trim(),
    '',
  ];

  const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
  if (pathParameters.length > 0) {
    out.push(
      '## Path parameters',
      '',
      '| name | type | rules | description |',
      '|---|---|---|---|',
    );
    for (const parameter of pathParameters) {
      const schema = toJsonSchema(document, parameter.schema ?? {});
      out.push(
        `| \`${parameter.name}\` | ${typeOf(schema)} | ${cell(rulesOf(schema).join('; '))} | ${cell(parameter.description)} |`,
      );
    }
    out.push('');
  }

  out.push(
    '## Headers',
    '',
    '| name | required | description |',
    '|---|---|---|',
    '| `Content-Type` | yes | `application/json` |',
    "| `Authorization` | yes | `<publicKey>:<signature>`, the HMAC of the body's exact bytes ([Signing requests](signing.md)) |",
  );
  for (const parameter of parameters.filter((parameter) => parameter.in === 'header')) {
    out.push(
      `| \`${parameter.name}\` | ${parameter.required ? 'yes' : 'no'} | ${cell(parameter.description)} |`,
    );
  }
  out.push('');

  out.push(`## Body: \`${bodyName ?? 'JSON'}\``, '');
  if (body.description) out.push(links(String(body.description)).trim(), '');
  out.push(
    '| field | type | required | rules | description |',
    '|---|---|---|---|---|',
    ...fieldRows(body, ''),
    '',
  );
  for (const keyword of ['oneOf', 'anyOf']) {
    if (!Array.isArray(body[keyword])) continue;
    out.push(
      `### ${keyword === 'oneOf' ? 'Exactly one' : 'At least one'} of these holds`,
      '',
      ...body[keyword].map((/** @type {Json} */ variant) => `- ${variantInWords(variant)}`),
      '',
    );
  }
  const requestExamples = mediaExamples(document, media);
  if (requestExamples.length > 0) {
    out.push('### Examples', '');
    for (const { name, summary, value } of requestExamples) {
      out.push(
        `\`${name}\`${summary ? `: ${summary}` : ''}`,
        '',
        '```json',
        JSON.stringify(value, null, 2),
        '```',
        '',
      );
    }
  }

  const responses = Object.entries(operation.responses ?? {});
  const successes = responses.filter(([status]) => /^2\d\d$/.test(status));
  out.push('## Answers', '');
  for (const [status, raw] of successes) {
    const response = /** @type {Json} */ (dereference(document, raw));
    out.push(`### ${status}`, '', oneLine(String(response.description ?? '')), '');
  }
  for (const name of new Set(successSchemas(document, found))) {
    const schema = toJsonSchema(document, { $ref: `#/components/schemas/${name}` });
    out.push(`### The answer's shape: \`${name}\``, '');
    if (schema.description) out.push(oneLine(String(schema.description)), '');
    out.push('| key | type | description |', '|---|---|---|', ...keyRows(schema, ''), '');
    const others = otherShapes(document, name, answerNames);
    if (others) out.push(others, '');
  }
  for (const [status, raw] of successes) {
    const media = contentOf(document, raw)['application/json'];
    for (const { name, summary, value } of mediaExamples(document, media)) {
      out.push(
        `### Example: ${status}, \`${name}\``,
        '',
        ...(summary ? [summary, ''] : []),
        '```json',
        JSON.stringify(value, null, 2),
        '```',
        '',
      );
    }
  }

  out.push(
    '## Errors',
    '',
    'Every error is an RFC 9457 problem (`application/problem+json`): `type`, `title`, `status`, `detail`, and for a broken rule `errors`, each `{ path, message }` naming the field.',
    '',
  );
  for (const [status, raw] of responses.filter(([status]) => !/^2\d\d$/.test(status))) {
    const response = /** @type {Json} */ (dereference(document, raw));
    out.push(`### ${status}`, '', oneLine(String(response.description ?? '')), '');
    const problemMedia = contentOf(document, raw)['application/problem+json'];
    for (const { name, summary, value } of mediaExamples(document, problemMedia)) {
      out.push(
        `\`${name}\`${summary ? `: ${summary}` : ''}`,
        '',
        '```json',
        JSON.stringify(value, null, 2),
        '```',
        '',
      );
    }
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

/**
 * The guide: the spec's "Signing requests" section, then the worked example computed here.
 *
 * @param {OpenApiDocument} document
 * @param {Operation[]} operations
 */
function signingPage(document, operations) {
  const guide = section(String(document.info.description ?? ''), 'Signing requests');
  const example = workedExample(document, operations);
  const lines = [
    '# Signing requests',
    '',
    pageLinks(guide, operations),
    '',
    '## Worked example, byte for byte',
    '',
    `Computed by the docs build with \`@institution-api/signing\` from fixed inputs: the public key \`${example.publicKey}\`, the secret key \`${example.secretKey}\` (demo keys, never real ones), \`created=${example.created}\` (${new Date(example.created * 1000).toISOString()}) and the nonce \`${example.nonce}\`. The body is the request example \`${example.exampleName}\` of \`${example.operationId}\` as \`JSON.stringify\` writes it: ${example.bodyBytes} bytes of UTF-8, no newline at the end.`,
    '',
    '### Body',
    '',
    '```json',
    example.body,
    '```',
    '',
    '### Authorization',
    '',
    "HMAC-SHA256 of the body's bytes, keyed with the secret key's UTF-8 bytes, in lowercase hex:",
    '',
    '```http',
    `Authorization: ${example.authorization}`,
    '```',
    '',
    '### Signature base',
    '',
    `What the message signature's HMAC covers (${example.base.split('\n').length} lines, no newline after the last):`,
    '',
    '```text',
    example.base,
    '```',
    '',
    '### The request',
    '',
    `The whole request as sent to \`${example.url}\`: the request line, the headers, an empty line, the body.`,
    '',
    '```http',
    example.message,
    '```',
    '',
  ];
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

/**
 * The worked example: the request and its signatures, computed from {@link workedExampleInputs}.
 *
 * @param {OpenApiDocument} document
 * @param {Operation[]} operations
 */
export function workedExample(document, operations = namedOperations(document)) {
  const { publicKey, secretKey, created, nonce, operationId } = workedExampleInputs;
  const found = operations.find((operation) => operation.operationId === operationId);
  if (!found) throw new Error(`The spec has no operation ${operationId} for the worked example.`);
  const media = contentOf(document, found.operation.requestBody)['application/json'];
  const [example] = mediaExamples(document, media);
  if (example === undefined) throw new Error(`${operationId} has no request example.`);
  const exampleName = example.name;
  const body = JSON.stringify(example.value);
  const servers = /** @type {Json[]} */ (document.servers ?? []);
  const server = String(servers[0]?.url ?? 'http://localhost:8080').replace(/\/+$/, '');
  const url = `${server}${found.path}`;
  const method = found.method.toUpperCase();
  const authorization = formatAuthorization(publicKey, signSync(body, secretKey));
  const fields = signMessageSync(
    { method, url, body },
    { keyId: publicKey, secretKey, created, nonce },
  );
  const target = new URL(url);
  const base = signatureBaseFor(
    { method, url, header: (name) => /** @type {Json} */ (fields)[name] },
    fields['signature-input'],
    DEFAULT_SIGNATURE_LABEL,
  );
  const headers = [
    `${method} ${target.pathname} HTTP/1.1`,
    `Host: ${target.host}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Authorization: ${authorization}`,
    `Content-Digest: ${fields['content-digest']}`,
    `Signature-Input: ${fields['signature-input']}`,
    `Signature: ${fields.signature}`,
  ];
  return {
    ...workedExampleInputs,
    exampleName,
    method,
    url,
    body,
    bodyBytes: Buffer.byteLength(body),
    authorization,
    contentDigest: String(fields['content-digest']),
    signatureInput: fields['signature-input'],
    signature: fields.signature,
    base,
    message: `${headers.join('\n')}\n\n${body}`,
  };
}

/**
 * The rows of an object schema's fields, nested objects as `parent.child` rows.
 *
 * @param {Json} schema
 * @param {string} prefix
 * @returns {string[]}
 */
function fieldRows(schema, prefix) {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([name, /** @type {Json} */ field]) => {
    const row = `| \`${prefix}${name}\` | ${typeOf(field)} | ${required.has(name) ? 'yes' : 'no'} | ${cell(rulesOf(field).join('; '))} | ${cell(field.description)} |`;
    return field.type === 'object' && field.properties
      ? [row, ...fieldRows(field, `${prefix}${name}.`)]
      : [row];
  });
}

/**
 * The rows of an answer's keys, nested objects (the account) as `parent.child` rows.
 *
 * @param {Json} schema
 * @param {string} prefix
 * @returns {string[]}
 */
function keyRows(schema, prefix) {
  return Object.entries(schema.properties ?? {}).flatMap(([name, /** @type {Json} */ key]) => {
    const row = `| \`${prefix}${name}\` | ${typeOf(key)} | ${cell(key.description)} |`;
    const object = [key, ...(key.anyOf ?? [])].find(
      (branch) => branch.type === 'object' && branch.properties,
    );
    return object ? [row, ...keyRows(object, `${prefix}${name}.`)] : [row];
  });
}

/**
 * How the answers of the other operations differ from `name`'s: the keys only one has, and the
 * account's keys of each.
 *
 * @param {OpenApiDocument} document
 * @param {string} name
 * @param {string[]} answerNames the answer schemas of every operation
 */
function otherShapes(document, name, answerNames) {
  const keys = (/** @type {string} */ shape) => {
    /** @type {Json} */
    const schema = toJsonSchema(document, { $ref: `#/components/schemas/${shape}` });
    const account = [
      schema.properties?.account ?? {},
      ...(schema.properties?.account?.anyOf ?? []),
    ].find((/** @type {Json} */ branch) => branch.type === 'object');
    return {
      top: Object.keys(schema.properties ?? {}),
      account: Object.keys(account?.properties ?? {}),
    };
  };
  const listed = (/** @type {string[]} */ names) =>
    names.map((key) => `\`${key}\``).join(', ') || 'none';
  const only = (/** @type {string[]} */ a, /** @type {string[]} */ b) =>
    listed(a.filter((key) => !b.includes(key)));
  const mine = keys(name);
  return answerNames
    .filter((other) => other !== name)
    .map((other) => {
      const theirs = keys(other);
      return [
        `Another operation answers with another shape, \`${other}\`; a client must read both (the client package reads both into one \`User\`):`,
        '',
        `- keys only \`${name}\` has: ${only(mine.top, theirs.top)}; only \`${other}\` has: ${only(theirs.top, mine.top)};`,
        `- the account's keys in \`${name}\`: ${listed(mine.account)}; in \`${other}\`: ${listed(theirs.account)}.`,
      ].join('\n');
    })
    .join('\n\n');
}

/**
 * One alternative of a `oneOf`: its title, the fields it fixes, requires or rules out.
 *
 * @param {Json} variant
 */
function variantInWords(variant) {
  const properties = Object.entries(variant.properties ?? {});
  const parts = [];
  const fixed = properties.filter(([, schema]) => 'const' in schema);
  if (fixed.length > 0)
    parts.push(
      fixed
        .map(([name, schema]) => `\`${name}\` is \`${JSON.stringify(schema.const)}\``)
        .join(', '),
    );
  if (variant.required?.length)
    parts.push(
      `requires ${variant.required.map((/** @type {string} */ name) => `\`${name}\``).join(', ')}`,
    );
  const absent = properties
    .filter(([, schema]) => schema.type === 'null')
    .map(([name]) => `\`${name}\``);
  if (absent.length > 0) parts.push(`${absent.join(', ')} null or left out`);
  for (const [name, schema] of properties) {
    if ('const' in schema || schema.type === 'null') continue;
    const rules = rulesOf(schema);
    if (rules.length > 0) parts.push(`\`${name}\`: ${rules.join(', ')}`);
  }
  return `**${variant.title ?? 'variant'}**: ${parts.join('; ')}.`;
}

/**
 * A schema's type in words: `string`, `string or null`, `"MOMO"`, `MOMO, BANK or null`.
 *
 * @param {Json} schema
 * @returns {string}
 */
function typeOf(schema) {
  if ('const' in schema) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum))
    return schema.enum
      .map((/** @type {unknown} */ value) => `\`${JSON.stringify(value)}\``)
      .join(', ');
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    return (schema.anyOf ?? schema.oneOf).map(typeOf).join(' or ');
  }
  /** @type {string[]} */
  const types = [].concat(schema.type ?? []);
  if (types.length === 0) return 'any';
  return types
    .map((type) => (type === 'array' && schema.items ? `array of ${typeOf(schema.items)}` : type))
    .join(' or ');
}

/**
 * A schema's constraints in words, one phrase each.
 *
 * @param {Json} schema
 * @returns {string[]}
 */
function rulesOf(schema) {
  const rules = [];
  if (schema.minLength !== undefined && schema.maxLength !== undefined) {
    rules.push(`${schema.minLength} to ${schema.maxLength} characters`);
  } else if (schema.maxLength !== undefined) rules.push(`at most ${schema.maxLength} characters`);
  else if (schema.minLength !== undefined) rules.push(`at least ${schema.minLength} characters`);
  if (schema.format !== undefined) rules.push(`format \`${schema.format}\``);
  if (schema.pattern !== undefined) rules.push(`matches \`${schema.pattern}\``);
  if (schema.minimum !== undefined) rules.push(`at least ${schema.minimum}`);
  if (schema.maximum !== undefined) rules.push(`at most ${schema.maximum}`);
  if (schema.exclusiveMinimum !== undefined) rules.push(`more than ${schema.exclusiveMinimum}`);
  if (schema.exclusiveMaximum !== undefined) rules.push(`less than ${schema.exclusiveMaximum}`);
  if (schema.maxItems !== undefined) rules.push(`at most ${schema.maxItems} items`);
  if (schema.default !== undefined) rules.push(`default \`${JSON.stringify(schema.default)}\``);
  if (schema.additionalProperties === false) rules.push('no other keys');
  for (const branch of schema.anyOf ?? schema.oneOf ?? []) rules.push(...rulesOf(branch));
  return rules;
}

/**
 * The text under the `# <title>` heading of Markdown, up to the next heading of its level; its own
 * subheadings one level down.
 *
 * @param {string} markdown
 * @param {string} title
 */
function section(markdown, title) {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === `# ${title}`);
  if (start === -1) throw new Error(`The spec's description has no section "# ${title}".`);
  const end = lines.findIndex((line, index) => index > start && /^# /.test(line));
  return lines
    .slice(start + 1, end === -1 ? undefined : end)
    .map((line) => (/^#{1,5} /.test(line) ? `#${line}` : line))
    .join('\n')
    .trim();
}

/**
 * Markdown links to the docs page's own anchors, which lead nowhere outside that page: one to an
 * operation (`[Update a user](#/users/updateuser)`) leads to its page here; any other
 * (`#/section/journeys/…`) becomes its text alone.
 *
 * @param {string} markdown
 * @param {Operation[]} operations
 */
function pageLinks(markdown, operations) {
  return markdown.replace(/\[([^\]]*)\]\(#([^)]*)\)/g, (_, text, anchor) => {
    const last = String(anchor).split('/').pop()?.toLowerCase();
    const operation = operations.find(({ operationId }) => operationId.toLowerCase() === last);
    return operation ? `[${text}](${operation.operationId}.md)` : text;
  });
}

/**
 * Markdown links to the docs page's own anchors as their text alone (in a table cell, a summary).
 *
 * @param {string} markdown
 */
function withoutPageLinks(markdown) {
  return markdown.replace(/\[([^\]]*)\]\(#[^)]*\)/g, '$1');
}

/**
 * A table cell: one line, pipes escaped.
 *
 * @param {unknown} text
 */
function cell(text) {
  return oneLine(withoutPageLinks(String(text ?? ''))).replaceAll('|', '\\|');
}

/** @param {string} text */
function oneLine(text) {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * The first sentence of an operation's description.
 *
 * @param {unknown} text
 */
function firstSentence(text) {
  const line = oneLine(withoutPageLinks(String(text ?? '')));
  const end = line.search(/\.(\s|$)/);
  return end === -1 ? line : line.slice(0, end + 1);
}
