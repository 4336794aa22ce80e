import { parseAuthorization, verify } from '@institution-api/signing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsersClientError } from '../src/errors.js';
import { normalizeUser } from '../src/user.js';
import { createUsersClient, type UsersClientOptions } from '../src/users-client.js';
import {
  bankAccountUser,
  CREDENTIALS,
  momoAccountUser,
  userAddedToInstitution,
  userCreatedNew,
  userUpdated,
  validationProblem,
} from './support/examples.js';
import { json, recordingFetch } from './support/recording-fetch.js';

const BASE_URL = 'https://institution.example.com';
const USER_ID = '3f0c9a52-6d1e-4b7a-9c2e-8a5d4f1b7e21';

function client(fetch: UsersClientOptions['fetch'], options: Partial<UsersClientOptions> = {}) {
  return createUsersClient({ baseUrl: BASE_URL, ...CREDENTIALS, fetch, retry: false, ...options });
}

describe('createUser', () => {
  it('POSTs the JSON body and signs exactly the bytes it sends', async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
    await client(fetch).createUser(momoAccountUser());

    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe(`${BASE_URL}/api/v1/external/users`);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(request?.text).toBe(JSON.stringify(momoAccountUser()));

    const header = parseAuthorization(request?.headers.get('authorization'));
    expect(header?.publicKey).toBe(CREDENTIALS.publicKey);
    expect(await verify(request?.bytes ?? '', header?.signature ?? '', CREDENTIALS.secretKey)).toBe(
      true,
    );
    // A signature over anything but the sent bytes must not verify.
    const other = `${request?.text} `;
    expect(await verify(other, header?.signature ?? '', CREDENTIALS.secretKey)).toBe(false);
  });

  it('signs non-ASCII bodies over their UTF-8 bytes', async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
    const body = { ...momoAccountUser(), firstName: 'Ɛfua', lastName: 'Ɔsei-Mɛnsah' };
    await client(fetch).createUser(body);
    const [request] = sent;
    expect(request?.bytes.length).toBeGreaterThan(request?.text.length ?? 0);
    const header = parseAuthorization(request?.headers.get('authorization'));
    expect(await verify(request?.bytes ?? '', header?.signature ?? '', CREDENTIALS.secretKey)).toBe(
      true,
    );
  });

  it('uses the configured algorithm and encoding', async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
    const signature = { algorithm: 'sha512', encoding: 'base64' } as const;
    await client(fetch, { signature }).createUser(bankAccountUser());
    const [request] = sent;
    const header = parseAuthorization(request?.headers.get('authorization'), signature);
    expect(header).not.toBeNull();
    expect(
      await verify(request?.bytes ?? '', header?.signature ?? '', CREDENTIALS.secretKey, signature),
    ).toBe(true);
  });

  it('reports 201 as created and normalizes the snake_case answer', async () => {
    const raw = userCreatedNew();
    const { fetch } = recordingFetch(json(201, raw));
    const { data, error, response } = await client(fetch).createUser(momoAccountUser());
    expect(error).toBeUndefined();
    expect(response?.status).toBe(201);
    expect(data?.created).toBe(true);
    expect(data?.user).toEqual(normalizeUser(raw));
    expect(data?.raw).toEqual(raw);
  });

  it('reports 200 (existing user added to the institution) as not created', async () => {
    const raw = userAddedToInstitution();
    const { fetch } = recordingFetch(json(200, raw));
    const { data } = await client(fetch).createUser(bankAccountUser());
    expect(data?.created).toBe(false);
    expect(data?.user.account?.bankName).toBe('GCB Bank');
  });

  it('returns a problem answer as a typed http error, without throwing', async () => {
    const problem = validationProblem();
    const { fetch } = recordingFetch(json(400, problem));
    const { data, error, response } = await client(fetch).createUser(momoAccountUser());
    expect(data).toBeUndefined();
    expect(response?.status).toBe(400);
    expect(error).toEqual({ ...problem, kind: 'http' });
    if (error?.kind !== 'http') throw new Error('expected an http error');
    expect(error.errors?.map((e) => e.path)).toEqual(['/body/network', '/body/mobileNumber']);
  });

  it('turns an error answer that is not problem+json into an about:blank problem', async () => {
    const { fetch } = recordingFetch(
      () => new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
    );
    const { error } = await client(fetch).createUser(momoAccountUser());
    expect(error).toEqual({
      kind: 'http',
      type: 'about:blank',
      title: 'Bad Gateway',
      status: 502,
      detail: 'The service answered 502 without a problem details body.',
    });
  });

  it('reports a success answer without a JSON object as invalid-response', async () => {
    for (const answer of [
      () => new Response('<html>ok</html>', { status: 200 }),
      () => new Response(null, { status: 204 }),
      json(201, ['not', 'a', 'user']),
    ]) {
      const { fetch } = recordingFetch(answer);
      const { data, error, response } = await client(fetch).createUser(momoAccountUser());
      expect(data).toBeUndefined();
      expect(error).toBeInstanceOf(UsersClientError);
      expect(error?.kind).toBe('invalid-response');
      expect(response).toBeInstanceOf(Response);
    }
  });

  it('returns a fetch that throws as a network error with the cause', async () => {
    const failure = new TypeError('fetch failed');
    const { data, error, response } = await client(async () => {
      throw failure;
    }).createUser(momoAccountUser());
    expect(data).toBeUndefined();
    expect(response).toBeUndefined();
    expect(error).toBeInstanceOf(UsersClientError);
    expect(error?.kind).toBe('network');
    expect((error as UsersClientError).cause).toBe(failure);
  });

  it('sends configured and per-call headers, and never lets a caller forge Authorization', async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
    const users = client(fetch, { headers: { 'User-Agent': 'acme-onboarding/1.0' } });
    await users.createUser(momoAccountUser(), {
      headers: { 'X-Request-Id': 'req-42', Authorization: 'pk_other:forged' },
    });
    const headers = sent[0]?.headers;
    expect(headers?.get('user-agent')).toBe('acme-onboarding/1.0');
    expect(headers?.get('x-request-id')).toBe('req-42');
    expect(headers?.get('authorization')?.startsWith(`${CREDENTIALS.publicKey}:`)).toBe(true);
  });

  it("merges headers as openapi-fetch does: the call's win over the client's, whatever their case", async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()), json(200, userUpdated()));
    const users = client(fetch, { headers: { 'X-Trace': 'client', 'User-Agent': 'acme/1.0' } });
    await users.createUser(momoAccountUser(), { headers: { 'x-trace': 'call' } });
    await users.updateUser(USER_ID, momoAccountUser(), { headers: { authorization: 'forged' } });
    expect(sent.map((request) => request.headers.get('x-trace'))).toEqual(['call', 'client']);
    expect(sent.map((request) => request.headers.get('content-type'))).toEqual([
      'application/json',
      'application/json',
    ]);
    expect(sent[1]?.headers.get('authorization')).toMatch(
      new RegExp(`^${CREDENTIALS.publicKey}:[0-9a-f]{64}$`),
    );
    expect(sent[1]?.headers.get('user-agent')).toBe('acme/1.0');
  });
});

describe('updateUser', () => {
  it('PUTs to the user id, signed, and normalizes the camelCase answer', async () => {
    const raw = userUpdated();
    const { fetch, sent } = recordingFetch(json(200, raw));
    const { data, error } = await client(fetch).updateUser(USER_ID, momoAccountUser());
    expect(error).toBeUndefined();
    const [request] = sent;
    expect(request?.method).toBe('PUT');
    expect(request?.url).toBe(`${BASE_URL}/api/v1/external/users/${USER_ID}`);
    expect(request?.text).toBe(JSON.stringify(momoAccountUser()));
    const header = parseAuthorization(request?.headers.get('authorization'));
    expect(await verify(request?.bytes ?? '', header?.signature ?? '', CREDENTIALS.secretKey)).toBe(
      true,
    );
    expect(data?.user).toEqual(normalizeUser(raw));
    expect(data?.raw).toEqual(raw);
    expect(data).not.toHaveProperty('created');
  });

  it('escapes the id into the path', async () => {
    const { fetch, sent } = recordingFetch(
      json(404, { type: 'x', title: 'Not found', status: 404 }),
    );
    const { error } = await client(fetch).updateUser('../../admin?x=1', momoAccountUser());
    expect(sent[0]?.url).toBe(`${BASE_URL}/api/v1/external/users/..%2F..%2Fadmin%3Fx%3D1`);
    expect(error?.kind).toBe('http');
  });
});

describe('raw', () => {
  it('is the typed openapi-fetch client with signing installed', async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
    const { data, response } = await client(fetch).raw.POST('/api/v1/external/users', {
      body: momoAccountUser() as never,
    });
    expect(response.status).toBe(201);
    expect(data?.account?.account_type).toBe('MOMO');
    const header = parseAuthorization(sent[0]?.headers.get('authorization'));
    expect(await verify(sent[0]?.bytes ?? '', header?.signature ?? '', CREDENTIALS.secretKey)).toBe(
      true,
    );
  });

  it('throws UsersClientError when no answer arrives', async () => {
    const users = client(async () => {
      throw new TypeError('fetch failed');
    });
    await expect(
      users.raw.PUT('/api/v1/external/users/{id}', {
        params: { path: { id: USER_ID } },
        body: momoAccountUser() as never,
      }),
    ).rejects.toMatchObject({ name: 'UsersClientError', kind: 'network' });
  });
});

describe('the cost of a call (issue "Performance", the client at the floor)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Counts the Requests constructed while `action` runs (openapi-fetch reads the global). */
  async function countRequests(action: (options: Partial<UsersClientOptions>) => Promise<unknown>) {
    const Original = globalThis.Request;
    let count = 0;
    globalThis.Request = class CountedRequest extends Original {
      constructor(...args: ConstructorParameters<typeof Request>) {
        super(...args);
        count++;
      }
    };
    try {
      await action({});
    } finally {
      globalThis.Request = Original;
    }
    return count;
  }

  it('calls fetch with a URL and an init, as the standard fetch: no Request built, the signed text re-sent as is', async () => {
    const calls: { input: unknown; init: RequestInit & { signal: AbortSignal } }[] = [];
    const answers = [json(503, validationProblem()), json(200, userUpdated())];
    const fetch: UsersClientOptions['fetch'] = async (input, init) => {
      calls.push({ input, init });
      return (answers[calls.length - 1] ?? answers[1])?.() as Response;
    };
    const users = client(fetch, { retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1 } });
    const created = await countRequests(async () => {
      const { error } = await users.updateUser(USER_ID, momoAccountUser());
      expect(error).toBeUndefined();
    });
    expect(created).toBe(0);
    expect(calls).toHaveLength(2);
    for (const { input, init } of calls) {
      expect(input).toBe(`${BASE_URL}/api/v1/external/users/${USER_ID}`);
      expect(init.method).toBe('PUT');
      expect(init.body).toBe(JSON.stringify(momoAccountUser()));
      expect(init.signal).toBeInstanceOf(AbortSignal);
    }
    // The retry sends the very headers of the first attempt, so the very Authorization, but a
    // message signature of its own (its nonce is new).
    const [first, retry] = calls.map(({ init }) => init.headers as Record<string, string>);
    const { signature, 'signature-input': input, ...rest } = first ?? {};
    expect(retry).toEqual({
      ...rest,
      signature: expect.any(String),
      'signature-input': expect.any(String),
    });
    expect(retry?.['signature-input']).not.toBe(input);
    expect(retry?.signature).not.toBe(signature);
  });

  it("hands the raw client's Request to fetch, with the attempt's signal in init", async () => {
    const inputs: unknown[] = [];
    const fetch: UsersClientOptions['fetch'] = async (input) => {
      inputs.push(input);
      return json(201, userCreatedNew())();
    };
    await client(fetch).raw.POST('/api/v1/external/users', { body: momoAccountUser() as never });
    expect(inputs[0]).toBeInstanceOf(Request);
  });

  it('passes the attempt signal to fetch in init, not on the Request', async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
    const caller = new AbortController();
    await client(fetch).createUser(momoAccountUser(), { signal: caller.signal });
    expect(sent[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(sent[0]?.signal).not.toBe(caller.signal);
    expect(sent[0]?.signal?.aborted).toBe(false);
  });

  it('allocates no AbortSignal.timeout or AbortSignal.any, with or without a caller signal', async () => {
    const timeout = vi.spyOn(AbortSignal, 'timeout');
    const any = vi.spyOn(AbortSignal, 'any');
    const { fetch } = recordingFetch(json(201, userCreatedNew()));
    const users = client(fetch, { retry: undefined });
    await users.createUser(momoAccountUser());
    await users.createUser(momoAccountUser(), { signal: new AbortController().signal });
    expect(timeout).not.toHaveBeenCalled();
    expect(any).not.toHaveBeenCalled();
  });

  it('signs with node:crypto on Node, synchronously: no Web Crypto call', async () => {
    const subtle = vi.spyOn(globalThis.crypto.subtle, 'sign');
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
    await client(fetch).createUser(momoAccountUser());
    expect(subtle).not.toHaveBeenCalled();
    const header = parseAuthorization(sent[0]?.headers.get('authorization'));
    expect(await verify(sent[0]?.bytes ?? '', header?.signature ?? '', CREDENTIALS.secretKey)).toBe(
      true,
    );
  });

  it('still ends an attempt on time when the injected fetch ignores the signal', async () => {
    const users = client(() => new Promise<never>(() => {}), { timeoutMs: 50 });
    const { error } = await users.createUser(momoAccountUser());
    expect(error?.kind).toBe('timeout');
  });

  it('refuses a per-call header HTTP cannot carry as the programming error it is', async () => {
    const { fetch, sent } = recordingFetch(json(201, userCreatedNew()));
    await expect(
      client(fetch).createUser(momoAccountUser(), { headers: { 'X-Bad': 'line\nbreak' } }),
    ).rejects.toThrow(TypeError);
    expect(sent).toHaveLength(0);
  });
});

describe('createUsersClient options', () => {
  const base = { baseUrl: BASE_URL, ...CREDENTIALS };

  it.each([
    [{ baseUrl: '/relative' }, /baseUrl/],
    [
      { baseUrl: 'https://user:hunter2@api.example.com' },
      /^baseUrl must not contain a user name or password$/,
    ],
    [{ publicKey: 'has:colon' }, /publicKey/],
    [{ publicKey: '' }, /publicKey/],
    [{ secretKey: '' }, /secretKey/],
    [{ timeoutMs: 0 }, /timeoutMs/],
    [{ timeoutMs: 1.5 }, /timeoutMs/],
    [{ retry: { retries: -1 } }, /retry\.retries/],
    [{ retry: { baseDelayMs: Number.NaN } }, /retry\.baseDelayMs/],
    [{ signature: { algorithm: 'md5' as 'sha256' } }, /algorithm/],
    [{ headers: { 'Bad Header': 'x' } }, /header/i],
  ])('rejects %o at creation', (bad, message) => {
    expect(() => createUsersClient({ ...base, ...bad })).toThrow(message);
  });

  it('never puts the secret key in an error message', () => {
    const secretKey = 'sk_example_secret_value';
    for (const bad of [{ publicKey: 'bad key' }, { timeoutMs: -1 }, { baseUrl: 'nope' }]) {
      try {
        createUsersClient({ ...base, secretKey, ...bad });
        throw new Error('expected a throw');
      } catch (error) {
        expect(String(error)).not.toContain(secretKey);
      }
    }
  });
});
