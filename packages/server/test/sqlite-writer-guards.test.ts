import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteWriter } from '../src/store/sqlite-writer.ts';

/** The writer thread's guards (decision 0255): a compare-and-set that changes no row stops its unit, which changes nothing. */
describe('guarded units of the SQLite writer thread', () => {
  let dir: string;
  let file: string;
  let writer: SqliteWriter;
  const rows = () => {
    const reader = new SQLite(file, { readonly: true });
    try {
      return reader.prepare('select id, n from t order by id').all();
    } finally {
      reader.close();
    }
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'obolus-writer-'));
    file = join(dir, 'w.db');
    writer = new SqliteWriter(file);
    await writer.run([{ sql: 'create table t (id integer primary key, n integer not null)', params: [] }]);
    await writer.run([{ sql: 'insert into t (id, n) values (1, 0)', params: [] }]);
  });
  afterEach(async () => {
    await writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const bump = (from: number) => ({
    sql: 'update t set n = n + 1 where id = 1 and n = ?',
    params: [from],
    guard: 'lost',
  });

  it('a unit whose every statement ran answers undefined; one stopped at its first statement answers the guard', async () => {
    expect(await writer.run([bump(0), { sql: 'insert into t (id, n) values (2, 0)', params: [] }])).toBeUndefined();
    expect(await writer.run([bump(0), { sql: 'insert into t (id, n) values (3, 0)', params: [] }])).toBe('lost');
    expect(rows()).toEqual([
      { id: 1, n: 1 },
      { id: 2, n: 0 },
    ]);
  });

  it('a guard after a change undoes the unit only: the other units of its batch commit', async () => {
    // Sent in one turn: one batch, run straight, then again with a savepoint per unit.
    const [first, stopped, last] = await Promise.all([
      writer.run([{ sql: 'insert into t (id, n) values (10, 0)', params: [] }]),
      writer.run([
        { sql: 'insert into t (id, n) values (11, 0)', params: [] },
        { sql: 'update t set n = 5 where id = 999', params: [], guard: 'missing' },
        { sql: 'insert into t (id, n) values (12, 0)', params: [] },
      ]),
      writer.run([bump(0), bump(1)]),
    ]);
    expect([first, stopped, last]).toEqual([undefined, 'missing', undefined]);
    expect(rows()).toEqual([
      { id: 1, n: 2 },
      { id: 10, n: 0 },
    ]);
  });

  it('racing compare-and-sets on one row: one wins, the others stop, whatever the batch', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => writer.run([bump(0), bump(1)])));
    expect(answers.filter((a) => a === undefined)).toHaveLength(1);
    expect(answers.filter((a) => a === 'lost')).toHaveLength(19);
    expect(rows()).toEqual([{ id: 1, n: 2 }]);
  });
});
