/**
 * Three server processes on one PostgreSQL behave as one server (spec
 * Assumptions, "Several processes"): the create-or-add and recognition races across them end in one user, and
 * what one process writes is what the others answer. (Credentials changed through one process are
 * seen by all within the credential cache's bound: credential-cache.ts, tested with revocation.)
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  countStatuses,
  newCredential,
  newPerson,
  type Service,
  sendSigned,
  startService,
  withPostgres,
} from './service.js';

const users = '/api/v1/external/users';
const alpha = newCredential('Alpha Savings');
const beta = newCredential('Beta Bank');
const gamma = newCredential('Gamma Credit');

withPostgres('three server processes on one PostgreSQL', { timeout: 60_000 }, () => {
  let service: Service;
  /** The base URL of server `index`. */
  const server = (index: number) => service.servers[index % service.servers.length]?.url ?? '';

  beforeAll(async () => {
    service = await startService(3, [alpha, beta, gamma]);
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
  });

  test('one person created 60 times at once through three processes: one 201, 59 × 200, one id; added by a second institution through the two others: 200, that id', async () => {
    const person = newPerson();
    const creates = await Promise.all(
      Array.from({ length: 60 }, (_, i) => sendSigned(server(i), alpha, 'POST', users, person)),
    );
    const ids = new Set(creates.map((answer) => answer.body.id));
    console.log(
      `60 creates of one person over 3 processes: ${JSON.stringify(countStatuses(creates))}, ids ${[...ids].join(', ')}`,
    );
    expect(countStatuses(creates)).toEqual({ 201: 1, 200: 59 });
    expect(ids.size).toBe(1);
    const [id] = ids;

    // Beta knows the person's mobile number, so it is added to Beta (spec Assumptions,
    // "Existing users"), through the processes Alpha's 201 did not necessarily come from, at once;
    // Gamma sends another mobile number and is refused, revealing nothing.
    const [adds, refusals] = await Promise.all([
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          sendSigned(server(1 + (i % 2)), beta, 'POST', users, person),
        ),
      ),
      Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          sendSigned(server(i), gamma, 'POST', users, { ...person, mobileNumber: '0201234567' }),
        ),
      ),
    ]);
    console.log(
      `Beta adding that person through processes 2 and 3: ${JSON.stringify(countStatuses(adds))}, ids ${[...new Set(adds.map((a) => a.body.id))].join(', ')}; Gamma without its mobile number: ${JSON.stringify(countStatuses(refusals))}`,
    );
    expect(countStatuses(adds)).toEqual({ 200: 20 });
    expect(adds.every((answer) => answer.body.id === id)).toBe(true);
    expect(countStatuses(refusals)).toEqual({ 409: 10 });
    expect(refusals.every((answer) => answer.body.id === undefined)).toBe(true);

    const rows = await service.postgres.psql(
      `SELECT (SELECT count(*) FROM users WHERE ghana_card_number = '${person.ghanaCardNumber}')
         || ' ' || (SELECT count(*) FROM memberships WHERE user_id = '${id}')`,
    );
    expect(rows).toBe('1 2');
  });

  test('details updated through one process are what a create-or-add of that person answers through the others', async () => {
    const person = newPerson();
    const created = await sendSigned(server(0), alpha, 'POST', users, person);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const updated = {
      ...person,
      firstName: 'Efua',
      email: `updated.${person.email}`,
      monthlyIncome: 4321.5,
    };
    const update = await sendSigned(server(1), alpha, 'PUT', `${users}/${id}`, updated);
    expect(update.status).toBe(200);

    const again = await sendSigned(server(2), alpha, 'POST', users, person);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      id,
      firstName: 'Efua',
      email: updated.email,
    });
    // The record is one, shared by its institutions: Beta adding the person through yet another
    // process gets the details Alpha updated.
    const added = await sendSigned(server(0), beta, 'POST', users, person);
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ id, firstName: 'Efua', email: updated.email });
  });
});
