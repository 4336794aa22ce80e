// Not a test: measures what one create and one update cost in the storage, on SQLite
// (synchronous=FULL in COMMIT, NORMAL, and as the server runs it: NORMAL with the fsync and the
// checkpoints off the event loop) and on PostgreSQL 15: one operation at a time (wall
// and CPU time), and ten at a time (wall time per operation, as ten HTTP connections would).
// PostgreSQL is compared with the statements the storage ran before (a transaction of five or six
// statements), replayed here verbatim, on the same server in the same run.
//
//   npm run build -w @institution-api/reference-server
//   node apps/reference-server/test/storage/measure-transactions.mjs [operations, default 2000]
//
// Figures move with the machine's load: compare the ratios of one run, not runs with each other.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresUnavailableReason, startPostgres } from '@institution-api/test-support/postgres';
import pg from 'pg';
import { randomEncryptionKey } from '../../dist/credentials/encryption-key.js';
import { loadMigrations, migrationsDir } from '../../dist/storage/migrations.js';
import { migratePostgres } from '../../dist/storage/postgres-database.js';
import { createPostgresStorage } from '../../dist/storage/postgres-storage.js';
import { migrateSqlite, openSqliteDatabase } from '../../dist/storage/sqlite-database.js';
import { createSqliteStorage } from '../../dist/storage/sqlite-storage.js';
import { userColumnValues, userWritableColumns } from '../../dist/storage/users/user-rows.js';

const operations = Number(process.argv[2] ?? 2000);
let sequence = 0;

function person() {
  sequence += 1;
  return {
    email: `measure.${sequence}@example.com`,
    firstName: 'Ama',
    lastName: 'Mensah',
    otherName: null,
    gender: 'female',
    dateOfBirth: '1990-05-17',
    mobileNumber: '+233241234567',
    ghanaCardNumber: `GHA-${String(sequence).padStart(9, '0')}-1`,
    monthlyIncome: 2500,
    isGhanaCardVerified: true,
    image: null,
    ghanaCardImage: null,
    kyc: { occupation: 'Teacher', address: null, validFrom: null, validTo: null, refNumber: null },
    account: {
      accountType: 'MOMO',
      accountNumber: '+233241234567',
      accountName: 'Ama Mensah',
      network: 'MTN',
      bankName: null,
    },
  };
}

/**
 * Runs `operation` `operations` times, `concurrency` at a time; mean wall and CPU microseconds per
 * operation.
 */
async function measure(operation, concurrency = 1) {
  for (let i = 0; i < 50; i++) await operation(); // warm-up: JIT, statement caches
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  let started = 0;
  const worker = async () => {
    while (started < operations) {
      started++;
      await operation();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallUs = ((performance.now() - start) * 1000) / operations;
  const cpu = process.cpuUsage(cpuBefore);
  return { wallUs, cpuUs: (cpu.user + cpu.system) / operations };
}

/** Creates users, then updates them, one at a time and ten at a time. */
async function createThenUpdate(storage, bank) {
  const created = [];
  const createOne = async () => {
    const details = person();
    created.push({ details, user: (await storage.createOrAddUser(bank, details)).user });
  };
  let next = 0;
  const updateOne = async () => {
    const { details, user } = created[next++ % created.length];
    await storage.updateUser(bank, user.id, { ...details, lastName: `Boateng ${next}` });
  };
  return {
    create: await measure(createOne),
    create10: await measure(createOne, 10),
    update: await measure(updateOne),
    update10: await measure(updateOne, 10),
  };
}

async function institutionOf(storage) {
  await storage.upsertCredentials([
    { institution: 'Measure', publicKey: 'pk_measure', secretKey: 'measure-secret-0123456789' },
  ]);
  return (await storage.findCredential('pk_measure')).institutionId;
}

const rows = [];
/** The key the measured storages seal their one secret with. */
const keyring = { current: randomEncryptionKey() };
const scratch = await mkdtemp(join(tmpdir(), 'measure-transactions-'));
try {
  for (const mode of ['full', 'normal', 'server']) {
    const file = join(scratch, `${mode}.sqlite`);
    const synchronous = mode === 'normal' ? 'normal' : 'full';
    const db = openSqliteDatabase(file, { synchronous });
    migrateSqlite(db, await loadMigrations(migrationsDir('sqlite')));
    // 'server': how openSqliteStorage runs it, fsync and checkpoints off the event loop.
    const storage = createSqliteStorage(db, keyring, mode === 'server' ? { file } : undefined);
    const result = await createThenUpdate(storage, await institutionOf(storage));
    const label =
      mode === 'server'
        ? 'SQLite file, WAL, as the server runs it (NORMAL + fsync off the loop, checkpoint thread)'
        : `SQLite file, WAL, synchronous=${synchronous.toUpperCase()} in COMMIT`;
    rows.push([label, result]);
    await storage.close();
  }

  const unavailable = postgresUnavailableReason();
  if (unavailable) {
    console.warn(`PostgreSQL skipped: ${unavailable}`);
  } else {
    const server = await startPostgres();
    try {
      const pool = new pg.Pool({ connectionString: server.url, max: 10 });
      await migratePostgres(pool, await loadMigrations(migrationsDir('postgres')));
      const roundTrip = await measure(() => pool.query('SELECT 1'));
      const storage = createPostgresStorage(pool, keyring);
      const bank = await institutionOf(storage);
      rows.push(['PostgreSQL 15: before (the previous statements)', await previous(pool, bank)]);
      rows.push(['PostgreSQL 15: after (this storage)', await createThenUpdate(storage, bank)]);
      const roundTrip10 = await measure(() => pool.query('SELECT 1'), 10);
      rows.push([
        'PostgreSQL 15: one round trip (SELECT 1)',
        { create: roundTrip, create10: roundTrip10, update: roundTrip, update10: roundTrip10 },
      ]);
      await pool.end();
    } finally {
      await server.stop();
    }
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}

const baseline = rows[0][1];
console.log(
  `\n${operations} operations each; µs per operation (ratio to the first row). ` +
    'Wall and CPU: one at a time. ×10: wall time per operation with ten in flight.\n',
);
console.log('| storage | operation | wall µs | CPU µs | ×10 wall µs |');
console.log('| --- | --- | ---: | ---: | ---: |');
const cell = (value, base) => `${value.toFixed(0)} (${(value / base).toFixed(2)}×)`;
for (const [name, result] of rows) {
  for (const operation of ['create', 'update']) {
    const one = result[operation];
    const ten = result[`${operation}10`];
    const base = [baseline[operation], baseline[`${operation}10`]];
    console.log(
      `| ${name} | ${operation} | ${cell(one.wallUs, base[0].wallUs)} | ` +
        `${cell(one.cpuUs, base[0].cpuUs)} | ${cell(ten.wallUs, base[1].wallUs)} |`,
    );
  }
}

/**
 * The create and update transactions as the storage ran them before this change (one statement per
 * step between BEGIN and COMMIT), on the same pool, so the two are measured side by side.
 */
async function previous(pool, bank) {
  const codec = { toDocument: (document) => document };
  const placeholders = userWritableColumns.map((_, index) => `$${index + 1}`).join(', ');
  const selectUser = `
    SELECT u.id, u.email, u.mobile_number, u.ghana_card_number, u.details, u.documents,
      u.created_at,
      a.id AS account_id, a.type AS account_type, a.number AS account_number,
      a.details AS account_details, a.created_at AS account_created_at
    FROM users u LEFT JOIN accounts a ON a.user_id = u.id
    WHERE u.id = $1`;
  const transaction = async (work) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };
  const created = [];
  const createOne = () =>
    transaction(async (tx) => {
      const details = person();
      const { rows: inserted } = await tx.query(
        `INSERT INTO users (${userWritableColumns.join(', ')}) VALUES (${placeholders})
         ON CONFLICT DO NOTHING RETURNING id`,
        userColumnValues(details, codec),
      );
      const id = inserted[0].id;
      const { accountType, accountNumber, ...account } = details.account;
      await tx.query(
        'INSERT INTO accounts (user_id, type, number, details) VALUES ($1, $2, $3, $4)',
        [id, accountType, accountNumber, account],
      );
      await tx.query(
        'INSERT INTO memberships (institution_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [bank, id],
      );
      created.push({ details, id });
      return (await tx.query(selectUser, [id])).rows[0];
    });
  let next = 0;
  const updateOne = () =>
    transaction(async (tx) => {
      const { details, id } = created[next++ % created.length];
      const changed = { ...details, lastName: `Boateng ${next}` };
      await tx.query(
        `UPDATE users SET ${userWritableColumns.map((column, index) => `${column} = $${index + 3}`).join(', ')},
           updated_at = now()
         WHERE id = $1
           AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = users.id AND m.institution_id = $2)
         RETURNING id`,
        [id, bank, ...userColumnValues(changed, codec)],
      );
      const { rows: current } = await tx.query(
        'SELECT id, type, number FROM accounts WHERE user_id = $1',
        [id],
      );
      const { accountType: _type, accountNumber: _number, ...account } = changed.account;
      await tx.query('UPDATE accounts SET details = $2 WHERE id = $1', [current[0].id, account]);
      return (await tx.query(selectUser, [id])).rows[0];
    });
  return {
    create: await measure(createOne),
    create10: await measure(createOne, 10),
    update: await measure(updateOne),
    update10: await measure(updateOne, 10),
  };
}
