// A released migration is never edited, not even a comment: databases record its checksum and a
// start refuses one that no released form of the file matches (src/storage/migrations.ts). Each
// file is held here to the checksum recorded in its dialect's checksums.json.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  checksumsFileName,
  type Dialect,
  loadMigrations,
  loadReleasedChecksums,
  migrationsDir,
} from '../../src/storage/migrations.js';

const dialects: Dialect[] = ['sqlite', 'postgres'];

describe.each(dialects)('the %s migrations', (dialect) => {
  const dir = migrationsDir(dialect);
  const record = join('migrations', dialect, checksumsFileName);

  test(`each file has the checksum ${record} records for it`, async () => {
    const released = await loadReleasedChecksums(dir);
    const files = (await readdir(dir)).filter((name) => name.endsWith('.sql')).sort();
    expect(
      files.filter((file) => !released[file]),
      `a new migration adds its line to ${record}`,
    ).toEqual([]);
    for (const { version, name, checksum } of await loadMigrations(dir)) {
      const file = `${String(version).padStart(4, '0')}_${name}.sql`;
      expect(
        checksum,
        `${dialect}/${file} is not the file that was released: restore the file and add a new migration instead`,
      ).toBe(released[file]?.sha256);
    }
  });

  test(`${record} names only files that exist, each with SHA-256s, each form once`, async () => {
    const released = await loadReleasedChecksums(dir);
    const files = await readdir(dir);
    expect(Object.keys(released).filter((file) => !files.includes(file))).toEqual([]);
    for (const line of Object.values(released)) {
      expect(Object.keys(line).filter((key) => key !== 'sha256' && key !== 'alsoAccepted')).toEqual(
        [],
      );
      const forms = [line.sha256, ...(line.alsoAccepted ?? [])];
      expect(forms.filter((form) => !/^[0-9a-f]{64}$/.test(form))).toEqual([]);
      expect(new Set(forms).size).toBe(forms.length);
    }
  });
});
