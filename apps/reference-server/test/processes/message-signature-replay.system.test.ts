/**
 * Two server processes on one PostgreSQL, an institution whose key pair requires message
 * signatures (INSTITUTION_CREDENTIALS `"messageSignature": "required"`): a request accepted by one
 * process and replayed through the other is refused, since the nonce is recorded in the database
 * both use, not in a process's memory (spec: "Assumptions", message signatures).
 */
import { type SignedRequest, signedRequest } from '@institution-api/test-support/signed-request';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newCredential, newPerson, type Service, startService, withPostgres } from './service.js';

const users = '/api/v1/external/users';
const delta = { ...newCredential('Delta Trust'), messageSignature: 'required' as const };

/** A request signed both ways for `baseUrl`, as a client sends it and an attacker captures it. */
function signed(baseUrl: string, method: 'POST' | 'PUT', path: string, body: unknown) {
  return { ...signedRequest(method, `${baseUrl}${path}`, delta, { body }), path };
}

/** Sends a captured request to `baseUrl`, optionally on another path; its status. */
async function send(
  baseUrl: string,
  request: SignedRequest & { path: string },
  path = request.path,
): Promise<number> {
  const response = await fetch(`${baseUrl}${path}`, request);
  await response.arrayBuffer();
  return response.status;
}

withPostgres(
  'message-signature nonces shared by two processes on one PostgreSQL',
  { timeout: 60_000 },
  () => {
    let service: Service;
    let first = '';
    let second = '';
    beforeAll(async () => {
      service = await startService(2, [delta]);
      first = service.servers[0]?.url ?? '';
      second = service.servers[1]?.url ?? '';
    }, 120_000);
    afterAll(async () => {
      await service?.stop();
    });

    test('a create accepted by one process and replayed through the other is refused', async () => {
      const create = signed(first, 'POST', users, newPerson());
      expect(await send(first, create)).toBe(201);
      expect(await send(second, create)).toBe(401);
      expect(await send(first, create)).toBe(401);
      // Without a message signature at all: refused by either.
      const bare = signed(first, 'POST', users, newPerson());
      const { 'signature-input': _, signature: __, ...headers } = bare.headers;
      expect(await send(second, { ...bare, headers })).toBe(401);
    });

    test('a captured update: replayed through the other process, or there on another user, refused', async () => {
      const created = await Promise.all(
        [newPerson(), newPerson()].map(async (person) => {
          const request = signed(first, 'POST', users, person);
          const response = await fetch(`${first}${users}`, {
            method: 'POST',
            headers: request.headers,
            body: request.body,
          });
          expect(response.status).toBe(201);
          return ((await response.json()) as { id: string }).id;
        }),
      );
      const [a, b] = created;
      const update = signed(first, 'PUT', `${users}/${a}`, newPerson({ firstName: 'Updated' }));
      expect(await send(first, update)).toBe(200);
      expect(await send(second, update)).toBe(401);
      expect(await send(second, update, `${users}/${b}`)).toBe(401);
    });

    test('the same request sent to both processes at once: exactly one is accepted', async () => {
      for (let round = 0; round < 5; round++) {
        const create = signed(first, 'POST', users, newPerson());
        const statuses = await Promise.all([send(first, create), send(second, create)]);
        expect(statuses.sort()).toEqual([201, 401]);
      }
    });
  },
);
