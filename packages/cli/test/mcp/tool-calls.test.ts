/**
 * A tool call that goes wrong answers a tool error a model can act on, and never throws: a
 * problem of the service (its status, title, detail and field errors), no answer (a refused
 * connection, a timeout, the server stopping), and arguments that are not the tool's. The calls
 * run in-process through a users client whose `fetch` plays the service.
 */

import { createUsersClient, type FetchLike } from '@institution-api/client';
import { testKeys } from '@institution-api/test-support/test-keys';
import { userBody } from '@institution-api/test-support/user-bodies';
import { openapiDocument } from '@institution-api/types';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { toolCalls } from '../../src/mcp/tool-calls.js';
import { deriveOperationTools } from '../../src/mcp/tool-definitions.js';

const baseUrl = 'http://service.test';
const tools = deriveOperationTools(openapiDocument);

/** The tool calls over `fetch`, one attempt each, with the lines they log. */
function callsOver(fetch: FetchLike, signal?: AbortSignal) {
  const lines: string[] = [];
  const client = createUsersClient({
    baseUrl,
    ...testKeys,
    fetch,
    timeoutMs: 100,
    retry: false,
  });
  const call = toolCalls({ client, baseUrl, tools, log: (line) => lines.push(line), signal });
  return { call, lines };
}

const texts = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : ''));

const problem = {
  type: 'urn:institution-api:problem:conflict',
  title: 'Conflict',
  status: 409,
  detail: 'A user with this email address already exists.',
  errors: [{ path: '/email', message: 'belongs to another user' }],
};

/** A fetch that never answers, until its signal ends the attempt. */
const hanging: FetchLike = (_input, init) =>
  new Promise((_resolve, reject) => {
    init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
  });

describe('a tool call that goes wrong', () => {
  it.each([
    {
      given: 'a problem of the service',
      fetch: (async () =>
        new Response(JSON.stringify(problem), {
          status: 409,
          headers: { 'content-type': 'application/problem+json', 'x-request-id': 'req-1' },
        })) as FetchLike,
      sentence:
        /^createUser failed: the service answered 409 \(Conflict\)\. A user with this email/,
      details: { problem },
      line: /^createUser -> 409 Conflict \(\d+ ms, request req-1\)$/,
    },
    {
      given: 'a refused connection',
      fetch: (async () => {
        throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
      }) as FetchLike,
      sentence:
        /^createUser failed: cannot reach http:\/\/service\.test\/api\/v1\/external\/users: connection refused \(ECONNREFUSED\)/,
      details: { failure: { kind: 'network' } },
      line: /^createUser -> no answer: cannot reach .* \(ECONNREFUSED\) \(\d+ ms\)$/,
    },
    {
      given: 'no answer in time',
      fetch: hanging,
      sentence: /^createUser failed: no complete answer from http:\/\/service\.test/,
      details: { failure: { kind: 'timeout' } },
      line: /^createUser -> no answer: no complete answer/,
    },
  ])(
    'is a tool error for $given, with what a model can act on',
    async ({ fetch, sentence, details, line }) => {
      const { call, lines } = callsOver(fetch);
      const result = await call('createUser', userBody('MomoAccountUser'));
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      const [first, second] = texts(result);
      expect(first).toMatch(sentence);
      expect(JSON.parse(second ?? '')).toMatchObject(details);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(line);
    },
  );

  it('is a tool error when the server stops during the call', async () => {
    const stopping = new AbortController();
    const { call } = callsOver(hanging, stopping.signal);
    const result = call('createUser', userBody('MomoAccountUser'));
    stopping.abort();
    expect(JSON.parse(texts(await result)[1] ?? '')).toMatchObject({
      failure: { kind: 'aborted' },
    });
  });

  it.each([
    {
      given: 'a list',
      tool: 'createUser',
      args: [userBody('MomoAccountUser')],
      want: /takes an object/,
    },
    { given: 'a string', tool: 'createUser', args: 'Ama Mensah', want: /takes an object/ },
    {
      given: 'no id',
      tool: 'updateUser',
      args: userBody('MomoAccountUser'),
      want: /"id" is required/,
    },
    {
      given: 'an id that is a number',
      tool: 'updateUser',
      args: { ...userBody('MomoAccountUser'), id: 42 },
      want: /"id" is required: the user's id \(a string\)/,
    },
  ])(
    'is a tool error for arguments that are $given, and sends nothing',
    async ({ tool, args, want }) => {
      let sent = 0;
      const { call } = callsOver(async () => {
        sent++;
        return new Response('{}', { status: 200 });
      });
      const result = await call(tool, args);
      expect(result.isError).toBe(true);
      expect(texts(result)[0]).toMatch(want);
      expect(sent).toBe(0);
    },
  );

  it('sends the id in the path only, percent-encoded, and the rest as the body', async () => {
    const sent: { url: string; body: string }[] = [];
    const { call } = callsOver(async (input, init) => {
      sent.push({ url: String(input), body: String(init?.body) });
      return new Response(JSON.stringify({ id: 'x' }), { status: 200 });
    });
    await call('updateUser', { ...userBody('MomoAccountUser'), id: '../../admin?x=1' });
    expect(sent[0]?.url).toBe(`${baseUrl}/api/v1/external/users/..%2F..%2Fadmin%3Fx%3D1`);
    expect(JSON.parse(sent[0]?.body ?? '')).toEqual(userBody('MomoAccountUser'));
  });
});
