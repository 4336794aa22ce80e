import pg from 'pg';

/**
 * How many of `ids` are rows of `users` in the PostgreSQL database at `databaseUrl`. The ids go as
 * one bound parameter of the query, never on a command line: their number grows with the load the
 * machine could make, and a `psql` argument of every id failed (E2BIG) past the kernel's 128 kB.
 */
export async function countStoredUsers(databaseUrl: string, ids: string[]): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ found: number }>(
      'SELECT count(*)::int AS found FROM users WHERE id = ANY($1::uuid[])',
      [ids],
    );
    return rows[0]?.found ?? 0;
  } finally {
    await client.end();
  }
}
