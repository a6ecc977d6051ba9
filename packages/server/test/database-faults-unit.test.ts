import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { isDatabaseUnavailable, isUniqueViolation } from '../src/store/driver-errors.ts';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

/** Which failures are the database being away (503, decision 0220), and the timeouts' edges. */
describe('an unavailable database, told from other failures', () => {
  it.each([
    ['08006', 'connection failure'],
    ['08001', 'cannot connect'],
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'crash shutdown'],
    ['57P03', 'the database system is starting up'],
    ['57014', 'canceling statement due to statement timeout'],
    ['25006', 'cannot execute INSERT in a read-only transaction'],
    ['53300', 'too many clients already'],
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'],
    ['ECONNRESET', 'read ECONNRESET'],
    ['SQLITE_FULL', 'database or disk is full'],
    ['SQLITE_READONLY', 'attempt to write a readonly database'],
    ['SQLITE_READONLY_DBMOVED', 'attempt to write a readonly database'],
    ['SQLITE_IOERR_WRITE', 'disk I/O error'],
    ['SQLITE_BUSY', 'database is locked'],
  ])('%s (%s) is unavailable', (code, message) => {
    expect(isDatabaseUnavailable(coded(code, message))).toBe(true);
  });

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Query read timeout',
    'Client has encountered a connection error and is not queryable',
  ])('pg says "%s": unavailable', (message) => {
    expect(isDatabaseUnavailable(new Error(message))).toBe(true);
  });

  it('looks through causes, a few deep', () => {
    const wrapped = new Error('outer', { cause: new Error('middle', { cause: coded('57P01') }) });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
  });

  it.each([
    ['23505', 'a unique violation'],
    ['23503', 'a foreign key violation'],
    ['42P01', 'a missing table (a bug, not an outage)'],
    ['SQLITE_CONSTRAINT_UNIQUE', 'a unique violation'],
    ['SQLITE_ERROR', 'a syntax error'],
  ])('%s (%s) is not', (code) => {
    expect(isDatabaseUnavailable(coded(code))).toBe(false);
  });

  it('nor is an error with no code, nor something not an error', () => {
    expect(isDatabaseUnavailable(new Error('Cannot read properties of undefined'))).toBe(false);
    expect(isDatabaseUnavailable('Connection terminated')).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    expect(isUniqueViolation(coded('23505'))).toBe(true);
  });
});

describe('OBOLUS_DATABASE_CONNECT_TIMEOUT_MS and OBOLUS_DATABASE_STATEMENT_TIMEOUT_MS', () => {
  const timeouts = (env: Record<string, string>) => loadConfig(env).databaseTimeouts;

  it('default to 2 s each', () => {
    expect(timeouts({})).toEqual({ connectMs: 2000, statementMs: 2000 });
  });

  it('take 100 ms to 60 s (connect) and 100 ms to 10 minutes (statement)', () => {
    expect(
      timeouts({ OBOLUS_DATABASE_CONNECT_TIMEOUT_MS: '100', OBOLUS_DATABASE_STATEMENT_TIMEOUT_MS: '100' }),
    ).toEqual({ connectMs: 100, statementMs: 100 });
    expect(
      timeouts({ OBOLUS_DATABASE_CONNECT_TIMEOUT_MS: '60000', OBOLUS_DATABASE_STATEMENT_TIMEOUT_MS: '600000' }),
    ).toEqual({ connectMs: 60_000, statementMs: 600_000 });
  });

  it.each([
    ['OBOLUS_DATABASE_CONNECT_TIMEOUT_MS', '99'],
    ['OBOLUS_DATABASE_CONNECT_TIMEOUT_MS', '60001'],
    ['OBOLUS_DATABASE_CONNECT_TIMEOUT_MS', '2s'],
    ['OBOLUS_DATABASE_STATEMENT_TIMEOUT_MS', '99'],
    ['OBOLUS_DATABASE_STATEMENT_TIMEOUT_MS', '600001'],
    ['OBOLUS_DATABASE_STATEMENT_TIMEOUT_MS', '-1'],
  ])('refuse %s=%s, naming the variable', (name, value) => {
    expect(() => timeouts({ [name]: value })).toThrow(name);
  });
});
