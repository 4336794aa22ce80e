/**
 * A tool call that goes wrong answers a tool error a model can act on, and never throws: a
 * problem of the service (its status, title, detail and field errors), no answer (a refused
 * connection, a timeout told with the real time budget, the server stopping), and arguments
 * that break the spec's rules (nothing sent). A call the client cancels ends at once with every
 * retry; while it retries, the client is told of each attempt. The calls run in-process through
 * a users client whose `fetch` plays the service.
 */

import { createUsersClient, type FetchLike, type RetryOptions } from '@institution-api/client';
import { testKeys } from '@institution-api/test-support/test-keys';
import { userBody } from '@institution-api/test-support/user-bodies';
import { openapiDocument } from '@institution-api/types';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { describe, expect, it, vi } from 'vitest';
import { argumentChecks } from '../../src/mcp/tool-arguments.js';
import { type CallContext, toolCalls } from '../../src/mcp/tool-calls.js';
import { deriveOperationTools } from '../../src/mcp/tool-definitions.js';

const baseUrl = 'http://service.test';
const tools = deriveOperationTools(openapiDocument);
const check = argumentChecks(openapiDocument, tools);
const id = '3f0c9a52-6d1e-4b7a-9c2e-8a5d4f1b7e21';

/** The tool calls over `fetch` (one attempt each unless `retry`), with the lines they log. */
function callsOver(
  fetch: FetchLike,
  { stopping = new AbortController().signal, retry = false as RetryOptions | false } = {},
) {
  const lines: string[] = [];
  const timeoutMs = 100;
  const client = createUsersClient({ baseUrl, ...testKeys, fetch, timeoutMs, retry });
  const attempts = retry === false ? 1 : (retry.retries ?? 2) + 1;
  const call = toolCalls({
    client,
    baseUrl,
    tools,
    check,
    budget: { attempts, timeoutMs },
    log: (line) => lines.push(line),
    stopping,
  });
  return { call, lines };
}

/** A request's context, never cancelled unless `signal` is. */
const context = (signal = new AbortController().signal): CallContext => ({ signal });

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
      sentence:
        /^createUser failed: no complete answer from http:\/\/service\.test\/api\/v1\/external\/users after 1 attempt in 0\.\d s \(each attempt is given 0\.1 s, at most 1 attempts\)/,
      details: { failure: { kind: 'timeout' } },
      line: /^createUser -> no answer: no complete answer/,
    },
  ])(
    'is a tool error for $given, with what a model can act on',
    async ({ fetch, sentence, details, line }) => {
      const { call, lines } = callsOver(fetch);
      const result = await call('createUser', userBody('MomoAccountUser'), context());
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      const [first, second] = texts(result);
      expect(first).toMatch(sentence);
      expect(JSON.parse(second ?? '')).toMatchObject(details);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(line);
    },
  );

  it('is a tool error when the server stops during the call, saying so', async () => {
    const stopping = new AbortController();
    const { call, lines } = callsOver(hanging, { stopping: stopping.signal });
    const result = call('createUser', userBody('MomoAccountUser'), context());
    stopping.abort();
    const [sentence, details] = texts(await result);
    expect(sentence).toMatch(/^createUser did not complete: the MCP server is stopping/);
    expect(JSON.parse(details ?? '')).toMatchObject({ failure: { kind: 'aborted' } });
    expect(lines).toEqual([
      expect.stringMatching(/^createUser -> ended: the MCP server is stopping/),
    ]);
  });

  it.each([
    {
      given: 'no id',
      tool: 'updateUser',
      args: userBody('MomoAccountUser'),
      want: /^updateUser: the arguments break the spec's rules, so nothing was sent: id is required\.$/,
      paths: ['/arguments/id'],
    },
    {
      given: 'an id that is ..',
      tool: 'updateUser',
      args: { ...userBody('MomoAccountUser'), id: '..' },
      want: /id must be a UUID/,
      paths: ['/arguments/id'],
    },
    {
      given: 'an id that is .',
      tool: 'updateUser',
      args: { ...userBody('MomoAccountUser'), id: '.' },
      want: /id must be a UUID/,
      paths: ['/arguments/id'],
    },
    {
      given: 'an id with a /',
      tool: 'updateUser',
      args: { ...userBody('MomoAccountUser'), id: `${id}/x` },
      want: /id must be/,
      paths: ['/arguments/id'],
    },
    {
      given: 'an id that is a number',
      tool: 'updateUser',
      args: { ...userBody('MomoAccountUser'), id: 42 },
      want: /id must be a string/,
      paths: ['/arguments/id'],
    },
    {
      given: 'a bad e-mail address',
      tool: 'createUser',
      args: { ...userBody('MomoAccountUser'), email: 'not-an-email' },
      want: /email must be an e-mail address/,
      paths: ['/arguments/email'],
    },
    {
      given: 'a field the spec does not have',
      tool: 'createUser',
      args: { ...userBody('MomoAccountUser'), nickname: 'x' },
      want: /nickname is not a field/,
      paths: ['/arguments/nickname'],
    },
    {
      given: 'a MOMO account without its network',
      tool: 'createUser',
      args: { ...userBody('MomoAccountUser'), network: null },
      want: /network is required when accountType is MOMO/,
      paths: ['/arguments/network'],
    },
  ])(
    'is a tool error for arguments with $given, naming the field, and sends nothing',
    async ({ tool, args, want, paths }) => {
      let sent = 0;
      const { call, lines } = callsOver(async () => {
        sent++;
        return new Response('{}', { status: 200 });
      });
      const result = await call(tool, args as Record<string, unknown>, context());
      expect(result.isError).toBe(true);
      const [sentence, details] = texts(result);
      expect(sentence).toMatch(want);
      expect(JSON.parse(details ?? '').errors.map((error: { path: string }) => error.path)).toEqual(
        paths,
      );
      expect(lines).toEqual([
        expect.stringMatching(new RegExp(`^${tool} -> refused here, nothing sent`)),
      ]);
      expect(sent).toBe(0);
    },
  );

  it('sends the id in the path and the rest as the body', async () => {
    const sent: { url: string; body: string }[] = [];
    const { call } = callsOver(async (input, init) => {
      sent.push({ url: String(input), body: String(init?.body) });
      return new Response(JSON.stringify({ id }), { status: 200 });
    });
    await call('updateUser', { ...userBody('MomoAccountUser'), id }, context());
    expect(sent[0]?.url).toBe(`${baseUrl}/api/v1/external/users/${id}`);
    expect(JSON.parse(sent[0]?.body ?? '')).toEqual(userBody('MomoAccountUser'));
  });
});

describe('a tool call with the strict profile', () => {
  const strictTools = deriveOperationTools(openapiDocument, { strictSchemas: true });
  /** Every field of the strict schema present, null where the body leaves one out. */
  const withNulls = (body: Record<string, unknown>) => {
    const properties = (strictTools[0]?.tool.inputSchema.properties ?? {}) as Record<
      string,
      unknown
    >;
    return Object.fromEntries(Object.keys(properties).map((name) => [name, body[name] ?? null]));
  };

  it.each([
    {
      given: 'nulls for every field left out',
      args: withNulls(userBody('MomoAccountUser')),
      sends: true,
    },
    { given: 'a field left out', args: userBody('MomoAccountUser'), sends: false },
  ])(
    'checks arguments with $given against the strict schema, then the spec',
    async ({ args, sends }) => {
      const sent: string[] = [];
      const lines: string[] = [];
      const client = createUsersClient({
        baseUrl,
        ...testKeys,
        retry: false,
        fetch: async (_input, init) => {
          sent.push(String(init?.body));
          return new Response(JSON.stringify({ id }), { status: 201 });
        },
      });
      const call = toolCalls({
        client,
        baseUrl,
        tools: strictTools,
        check: argumentChecks(openapiDocument, strictTools),
        budget: { attempts: 1, timeoutMs: 1_000 },
        log: (line) => lines.push(line),
        stopping: new AbortController().signal,
      });
      const result = await call('createUser', args, context());
      expect(result.isError ?? false).toBe(!sends);
      // What the spec reads: the nulls the profile added are fields left out; its own nulls stay.
      // bankName is null in the spec's own words (no bank for a MOMO account), so it stays.
      if (sends) {
        expect(JSON.parse(sent[0] ?? '')).toEqual({
          ...userBody('MomoAccountUser'),
          bankName: null,
        });
      } else expect(texts(result)[0]).toMatch(/is required/);
    },
  );
});

describe('a tool call the client cancels', () => {
  it('ends its attempt and sends no retry, answered as cancelled', async () => {
    const sent: number[] = [];
    const { call, lines } = callsOver(
      (input, init) => {
        sent.push(performance.now());
        return hanging(input, init);
      },
      { retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1 } },
    );
    // The client's clock in the test's hands: time moves when the test says, never by waiting.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const cancel = new AbortController();
      const result = call('createUser', userBody('MomoAccountUser'), context(cancel.signal));
      await vi.advanceTimersByTimeAsync(20);
      expect(sent).toHaveLength(1);
      cancel.abort('the user pressed stop');
      const cancelledAt = performance.now();
      const [sentence] = texts(await result);
      expect(sentence).toMatch(
        /^createUser did not complete: the client cancelled it after 1 attempt/,
      );
      // Long enough for two more attempts of 100 ms, had the retries gone on.
      await vi.advanceTimersByTimeAsync(400);
      expect(sent).toHaveLength(1);
      expect(sent.every((at) => at < cancelledAt)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
    expect(lines.at(-1)).toMatch(/^createUser -> ended: the client cancelled it, 1 attempt in/);
  });
});

describe('a tool call that retries', () => {
  it('tells a client that asked for progress of each failed attempt, then answers', async () => {
    let attempt = 0;
    const { call } = callsOver(
      async () =>
        ++attempt < 3
          ? new Response('{"title":"Unavailable","status":503}', {
              status: 503,
              headers: { 'retry-after': '0', 'content-type': 'application/problem+json' },
            })
          : new Response(JSON.stringify({ id }), { status: 201 }),
      { retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 10 } },
    );
    const progress: unknown[] = [];
    const result = await call('createUser', userBody('MomoAccountUser'), {
      signal: new AbortController().signal,
      progress: async (...notice) => {
        progress.push(notice);
      },
    });
    expect(result.structuredContent).toMatchObject({ status: 201 });
    expect(progress).toEqual([
      [1, 3, 'attempt 1 of 3 answered 503; attempt 2 in 0.0 s'],
      [2, 3, 'attempt 2 of 3 answered 503; attempt 3 in 0.0 s'],
    ]);
  });

  it('says how long it really tried when no attempt is answered in time', async () => {
    const { call } = callsOver(hanging, { retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    const [sentence] = texts(await call('createUser', userBody('MomoAccountUser'), context()));
    expect(sentence).toMatch(
      /^createUser failed: no complete answer from \S+ after 3 attempts in 0\.[3-9] s \(each attempt is given 0\.1 s, at most 3 attempts\)/,
    );
  });
});
