// Moves every row of one database into another through a plain SQL file: `cli db export`
// writes it (from the embedded database, or any other), `cli db import` loads it into an
// empty PostgreSQL database. The file is what psql runs as well:
//
//   -- commerce-backoffice data dump, format 1      (then the migrations it was made at)
//   SET client_encoding = 'UTF8';
//   SET audit.disabled = 'on';                       the dump carries the source's audit trail: loading
//                                                    it is no change of anyone's for the triggers to record
//   BEGIN;
//   ALTER TABLE ... DEFERRABLE INITIALLY DEFERRED;   foreign keys that close a cycle of tables
//   COPY "Table" ("col", ...) FROM stdin;            one block per table, parents first
//   <rows in COPY text format>
//   \.
//   -- rows: N                                        checked by the import
//   SELECT pg_catalog.setval(...);                    every serial column's sequence
//   SET CONSTRAINTS ALL IMMEDIATE;                    the deferred keys checked, then made
//   ALTER TABLE ... NOT DEFERRABLE ...;               as the migrations made them again
//   -- end of dump: T tables, R rows
//   COMMIT;
//
// Both directions stream: the export reads each table a page at a time (keyset order on
// its primary key) and appends to the file; the import reads the file line by line into
// COPY. Neither holds more than a page or a chunk, whatever the size of a table.
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import { checkReachable, describeUrl, openDatabase } from './client.ts';
import { keepPoolAlive, pgChannel, type SqlChannel } from './sqlChannel.ts';
import { applyMigrations, MigrationError, readMigrations } from './migrate.ts';

export class TransferError extends Error {}

export interface TransferSummary {
  tables: number;
  rows: number;
  file: string;
}

const FORMAT_PREFIX = '-- commerce-backoffice data dump, format ';
const FORMAT = 1;
/** Rows per export query: a page of wide rows stays a few MB. */
const PAGE_ROWS = 1_000;
/** COPY data is sent in chunks of about this many characters. */
const COPY_CHUNK = 64 * 1024;
const MIGRATIONS_TABLE = '_prisma_migrations';
/**
 * Tables whose rows stay: the migrations table, the store change counters, which are the
 * validators of one database's answers (migration store_change_counter), and the returns
 * overview's rollups and facts (migration overview_rollups): loading the rows bumps the
 * target's own counters and counts them into its own rollups.
 */
const NOT_MOVED = [MIGRATIONS_TABLE, 'StoreChangeCounter', 'ReturnsOverviewRollup', 'ReturnOverviewFact'];

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const unquote = (quoted: string, mark: string) => quoted.slice(1, -1).replaceAll(mark + mark, mark);

// ---------------------------------------------------------------------------------------
// Migrations: a dump moves rows between databases with the same schema, so the source, the
// dump and the target must all be at the migrations this checkout has.

interface Migration {
  name: string;
  checksum: string;
  finished: boolean;
}

interface MigrationDiff {
  /** In prisma/migrations, not applied. */
  missing: string[];
  /** Applied, unknown to prisma/migrations (a newer version of the service made them). */
  unknown: string[];
  changed: string[];
  unfinished: string[];
}

function diffMigrations(applied: Migration[]): MigrationDiff {
  const local = new Map(readMigrations().map((m) => [m.name, m.checksum]));
  const names = new Set(applied.map((m) => m.name));
  return {
    missing: [...local.keys()].filter((name) => !names.has(name)),
    unknown: applied.filter((m) => !local.has(m.name)).map((m) => m.name),
    changed: applied.filter((m) => local.has(m.name) && local.get(m.name) !== m.checksum).map((m) => m.name),
    unfinished: applied.filter((m) => !m.finished).map((m) => m.name),
  };
}

function describeDiff(diff: MigrationDiff, parts: (keyof MigrationDiff)[]): string[] {
  const what: Record<keyof MigrationDiff, string> = {
    missing: 'not applied',
    unknown: 'not in prisma/migrations (made by another version of the service)',
    changed: 'changed in prisma/migrations since they were applied',
    unfinished: 'started but never finished',
  };
  return parts.filter((part) => diff[part].length > 0).map((part) => `${what[part]}: ${diff[part].join(', ')}`);
}

/** Applied migrations, or undefined when the database has no migrations table at all. */
async function appliedMigrations(sql: SqlChannel): Promise<Migration[] | undefined> {
  const [{ present }] = await sql.query<{ present: boolean }>(`SELECT to_regclass(${literal(ident(MIGRATIONS_TABLE))}) IS NOT NULL AS present`);
  if (!present) return undefined;
  return sql.query<Migration>(
    `SELECT migration_name AS name, checksum, finished_at IS NOT NULL AS finished FROM ${ident(MIGRATIONS_TABLE)} WHERE rolled_back_at IS NULL ORDER BY migration_name`,
  );
}

// ---------------------------------------------------------------------------------------
// The catalog: which tables, in which order, with which columns and keys.

interface Column {
  name: string;
  /** As format_type spells it, to cast a key value back to its column's type. */
  type: string;
  /** Position in the primary key (1-based), 0 when not part of it. */
  keyPosition: number;
}

interface Table {
  name: string;
  columns: Column[];
  key: Column[];
}

const SCHEMA_RELATIONS = `pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()`;

/** A foreign key loaded as DEFERRABLE INITIALLY DEFERRED, and checked once every table is in. */
interface DeferredKey {
  table: string;
  constraint: string;
}

interface Reference {
  child: string;
  parent: string;
  constraint: string;
}

/** The service's tables (not the migrations table) in the current schema, in an order they load in. */
async function readTables(sql: SqlChannel): Promise<{ tables: Table[]; deferred: DeferredKey[] }> {
  const columns = await sql.query<{ table: string } & Column>(
    `SELECT c.relname::text AS "table", a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type,
            coalesce(array_position(k.conkey, a.attnum), 0)::int AS "keyPosition"
     FROM ${SCHEMA_RELATIONS}
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     LEFT JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'p'
     WHERE c.relkind IN ('r', 'p') AND c.relname <> ALL ($1)
     ORDER BY c.relname, a.attnum`,
    [NOT_MOVED],
  );
  const tables = new Map<string, Table>();
  for (const { table, ...column } of columns) {
    const entry = tables.get(table) ?? { name: table, columns: [], key: [] };
    entry.columns.push(column);
    tables.set(table, entry);
  }
  for (const table of tables.values()) {
    table.key = table.columns.filter((c) => c.keyPosition > 0).sort((a, b) => a.keyPosition - b.keyPosition);
    // Paging walks the primary key; every table the migrations make has one.
    if (table.key.length === 0) throw new TransferError(`table "${table.name}" has no primary key, so it cannot be exported page by page`);
  }
  const references = await sql.query<Reference>(
    `SELECT c.relname::text AS child, p.relname::text AS parent, k.conname::text AS "constraint"
     FROM ${SCHEMA_RELATIONS} JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'f' JOIN pg_class p ON p.oid = k.confrelid
     ORDER BY 1, 3`,
  );
  return loadOrder(tables, references.filter((r) => r.child !== r.parent && tables.has(r.child) && tables.has(r.parent)));
}

/**
 * Orders tables so each comes after the tables it references (ties by name, so a dump of
 * the same data is the same file). Where references form a cycle (a store's default
 * location is one of the store's locations), one table's keys into the cycle are deferred
 * and it loads first. A table referencing itself needs nothing: COPY checks foreign keys
 * at the end of the statement.
 */
function loadOrder(tables: Map<string, Table>, references: Reference[]): { tables: Table[]; deferred: DeferredKey[] } {
  const waitingFor = new Map([...tables.keys()].map((name) => [name, new Set<string>()]));
  for (const { child, parent } of references) waitingFor.get(child)!.add(parent);
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean => {
    for (const next of waitingFor.get(from) ?? []) {
      if (next === to) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      if (reaches(next, to, seen)) return true;
    }
    return false;
  };
  const ordered: Table[] = [];
  const deferred: DeferredKey[] = [];
  while (waitingFor.size > 0) {
    const ready = [...waitingFor].filter(([, parents]) => parents.size === 0).map(([name]) => name).sort();
    if (ready.length === 0) {
      // Nothing is free, so some table lies on a cycle; its references back into that cycle wait.
      const breaker = [...waitingFor.keys()].sort().find((name) => reaches(name, name))!;
      const parents = waitingFor.get(breaker)!;
      for (const parent of [...parents].filter((p) => reaches(p, breaker))) {
        parents.delete(parent);
        for (const r of references) if (r.child === breaker && r.parent === parent) deferred.push({ table: breaker, constraint: r.constraint });
      }
      continue;
    }
    for (const name of ready) {
      waitingFor.delete(name);
      for (const parents of waitingFor.values()) parents.delete(name);
      ordered.push(tables.get(name)!);
    }
  }
  return { tables: ordered, deferred };
}

interface SerialColumn {
  table: string;
  column: string;
  sequence: string;
}

async function readSerialColumns(sql: SqlChannel): Promise<SerialColumn[]> {
  return sql.query<SerialColumn>(
    `SELECT "table", "column", sequence FROM (
       SELECT c.relname::text AS "table", a.attname::text AS "column",
              pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) AS sequence
       FROM ${SCHEMA_RELATIONS} JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       WHERE c.relkind IN ('r', 'p')) s
     WHERE sequence IS NOT NULL ORDER BY 1, 2`,
  );
}

// ---------------------------------------------------------------------------------------
// Export

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value in COPY's text format: the four characters that would end a field or a row escaped, \N for NULL. */
function copyField(value: string | null): string {
  if (value === null) return '\\N';
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (ch) => COPY_ESCAPES[ch]) : value;
}

/** Writes `text`, waiting while the stream's buffer is full; rejects once the stream has failed. */
async function write(stream: Writable, done: Promise<void>, text: string): Promise<void> {
  if (stream.errored) throw stream.errored;
  if (!stream.write(text)) await Promise.race([once(stream, 'drain'), done]);
}

/** A settled-or-failed promise for `stream` that never counts as an unhandled rejection before it is awaited. */
function completion(stream: Writable): Promise<void> {
  const done = finished(stream);
  done.catch(() => undefined);
  return done;
}

/**
 * Writes one table's COPY block, a page of PAGE_ROWS rows at a time. Every value is read
 * as text, which is its type's output (what COPY ... TO writes) except for booleans
 * (`true` for `t`), which COPY FROM reads either way.
 */
async function exportTable(sql: SqlChannel, file: Writable, done: Promise<void>, table: Table): Promise<number> {
  const select = table.columns.map((c) => `${ident(c.name)}::text AS ${ident(c.name)}`).join(', ');
  // Qualified: a bare name in ORDER BY would mean the selected text of the column, which orders a number key as text.
  const order = table.key.map((c) => `${ident(table.name)}.${ident(c.name)}`).join(', ');
  const after = table.key.map((c, i) => `$${i + 1}::${c.type}`).join(', ');
  const first = `SELECT ${select} FROM ${ident(table.name)} ORDER BY ${order} LIMIT ${PAGE_ROWS}`;
  const next = `SELECT ${select} FROM ${ident(table.name)} WHERE (${order}) > (${after}) ORDER BY ${order} LIMIT ${PAGE_ROWS}`;
  await write(file, done, `COPY ${ident(table.name)} (${table.columns.map((c) => ident(c.name)).join(', ')}) FROM stdin;\n`);
  let rows = 0;
  let page = await sql.query<Record<string, string | null>>(first);
  while (page.length > 0) {
    await write(file, done, page.map((row) => table.columns.map((c) => copyField(row[c.name])).join('\t') + '\n').join(''));
    rows += page.length;
    if (page.length < PAGE_ROWS) break;
    const last = page[page.length - 1];
    page = await sql.query<Record<string, string | null>>(next, table.key.map((c) => last[c.name]));
  }
  await write(file, done, `\\.\n-- rows: ${rows}\n\n`);
  return rows;
}

/** The newest transaction id handed out; it moves only when something writes. */
async function writeMark(sql: SqlChannel): Promise<string> {
  const [{ mark }] = await sql.query<{ mark: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS mark');
  return mark;
}

async function writeDump(sql: SqlChannel, kind: string, file: Writable, done: Promise<void>): Promise<Omit<TransferSummary, 'file'>> {
  const applied = await appliedMigrations(sql);
  if (!applied) throw new TransferError(`the source database has no ${MIGRATIONS_TABLE} table: it is not a database of this service`);
  const mismatch = describeDiff(diffMigrations(applied), ['missing', 'unknown', 'changed', 'unfinished']);
  if (mismatch.length > 0) {
    throw new TransferError(
      `the source database's migrations differ from prisma/migrations (${mismatch.join('; ')}); ` +
        'export with the version of the service that matches it, after `cli migrate` when migrations are only missing',
    );
  }
  // Dates and timestamps read back unambiguously only from ISO text.
  const [{ datestyle }] = await sql.query<{ datestyle: string }>(`SELECT current_setting('DateStyle') AS datestyle`);
  if (!datestyle.startsWith('ISO')) throw new TransferError(`the source session's DateStyle is "${datestyle}"; the export needs ISO dates`);
  // A server that owns an embedded directory lets the export read through its socket,
  // but shares its one session, so the export cannot hold a snapshot across tables.
  // Instead it refuses a dump during which anything was written.
  const mark = await writeMark(sql);
  const { tables, deferred } = await readTables(sql);
  await write(
    file,
    done,
    [
      `${FORMAT_PREFIX}${FORMAT}`,
      '-- Written by `cli db export`. Load it with `cli db import --from FILE` (DATABASE_URL=postgresql://...),',
      '-- or with `psql -v ON_ERROR_STOP=1 -f FILE` into a database `cli migrate` made and nothing wrote to since.',
      `-- source: ${kind}, exported at ${new Date().toISOString()}`,
      ...applied.map((m) => `-- migration: ${m.name} ${m.checksum}`),
      "SET client_encoding = 'UTF8';",
      AUDIT_OFF,
      'BEGIN;',
      ...deferred.map((key) => `ALTER TABLE ${ident(key.table)} ALTER CONSTRAINT ${ident(key.constraint)} DEFERRABLE INITIALLY DEFERRED;`),
      '',
      '',
    ].join('\n'),
  );
  let rows = 0;
  for (const table of tables) rows += await exportTable(sql, file, done, table);
  for (const serial of await readSerialColumns(sql)) {
    const [state] = await sql.query<{ value: string; called: boolean }>(`SELECT last_value::text AS value, is_called AS called FROM ${serial.sequence}`);
    await write(
      file,
      done,
      `SELECT pg_catalog.setval(pg_catalog.pg_get_serial_sequence(${literal(ident(serial.table))}, ${literal(serial.column)}), ${state.value}, ${state.called});\n`,
    );
  }
  if (deferred.length > 0) {
    // Checked now, then back to how the migrations made them.
    await write(
      file,
      done,
      [
        'SET CONSTRAINTS ALL IMMEDIATE;',
        ...deferred.map((key) => `ALTER TABLE ${ident(key.table)} ALTER CONSTRAINT ${ident(key.constraint)} NOT DEFERRABLE INITIALLY IMMEDIATE;`),
        '',
      ].join('\n'),
    );
  }
  await write(file, done, `-- end of dump: ${tables.length} tables, ${rows} rows\nCOMMIT;\n`);
  if ((await writeMark(sql)) !== mark) {
    throw new TransferError('the database was written to while it was exported (by the server that owns it?); stop the server and export again');
  }
  return { tables: tables.length, rows };
}

/**
 * Writes every row of the database `url` names into `file` (which must not exist yet). An
 * embedded directory a running server owns is read through its socket, as every CLI
 * command does.
 */
export async function exportDump(url: string, file: string): Promise<TransferSummary> {
  const target = path.resolve(file);
  if (fs.existsSync(target)) throw new TransferError(`${target} already exists; db export does not overwrite a file`);
  const { kind, target: location } = describeUrl(url);
  if (kind === 'pglite') {
    if (location === 'memory:' || location === '') throw new TransferError('an in-memory database has nothing to export; DATABASE_URL must name the embedded directory, e.g. pglite:./data/pglite');
    // Opening a directory that is not there would make a new, empty database.
    const directory = path.resolve(location);
    if (!fs.existsSync(path.join(directory, 'PG_VERSION'))) throw new TransferError(`there is no embedded database in ${directory}`);
  }
  // Only a complete dump gets the name asked for.
  const partial = `${target}.partial`;
  const out = fs.createWriteStream(partial);
  const done = completion(out);
  try {
    await once(out, 'open');
  } catch (error) {
    throw new TransferError(`cannot write ${target}: ${(error as Error).message}`);
  }
  try {
    const db = await openDatabase(url, { poolSize: 1 });
    let summary: Omit<TransferSummary, 'file'>;
    try {
      summary = await writeDump(db.sql, kind, out, done);
    } finally {
      await db.close();
    }
    out.end();
    await done;
    fs.renameSync(partial, target);
    return { ...summary, file: target };
  } catch (error) {
    out.destroy();
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

// ---------------------------------------------------------------------------------------
// Import

/** The file's lines, read a chunk at a time (COPY text rows never contain a raw newline). */
async function* readLines(file: string): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of fs.createReadStream(file, { encoding: 'utf8' })) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop()!;
    yield* lines;
  }
  if (rest !== '') yield rest;
}

/** The migrations a dump was made at, from its header; refuses anything that is not a dump of this format. */
async function readHeader(file: string): Promise<Migration[]> {
  const migrations: Migration[] = [];
  let first = true;
  for await (const line of readLines(file)) {
    if (first) {
      first = false;
      if (!line.startsWith(FORMAT_PREFIX)) throw new TransferError(`${file} is not a dump written by \`cli db export\` (its first line is not "${FORMAT_PREFIX}${FORMAT}")`);
      const format = line.slice(FORMAT_PREFIX.length);
      if (format !== String(FORMAT)) throw new TransferError(`${file} is a dump of format ${format}; this version reads format ${FORMAT}`);
      continue;
    }
    if (!line.startsWith('--')) break;
    const migration = /^-- migration: (\S+) ([0-9a-f]{64})$/.exec(line);
    if (migration) migrations.push({ name: migration[1], checksum: migration[2], finished: true });
  }
  if (first) throw new TransferError(`${file} is empty`);
  return migrations;
}

async function tablesIn(client: pg.PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname::text AS name FROM ${SCHEMA_RELATIONS} WHERE c.relkind IN ('r', 'p') AND c.relname <> ALL ($1) ORDER BY 1`,
    [NOT_MOVED],
  );
  return rows.map((r) => r.name);
}

/** Tables of `names` holding at least one row. */
async function tablesWithRows(client: pg.PoolClient, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const { rows } = await client.query<{ name: string }>(
    names.map((name) => `SELECT ${literal(name)} AS name WHERE EXISTS (SELECT 1 FROM ${ident(name)})`).join(' UNION ALL '),
  );
  return rows.map((r) => r.name);
}

function refuseData(withRows: string[]): never {
  const named = withRows.slice(0, 5).map((t) => `"${t}"`).join(', ') + (withRows.length > 5 ? ` and ${withRows.length - 5} more tables` : '');
  throw new TransferError(`the target database holds data (rows in ${named}); db import fills only an empty database, and changed nothing`);
}

/**
 * One table's COPY: lines go out in chunks, one chunk in flight at a time. After PostgreSQL
 * refused a row, pg-copy-streams has let go of the connection and must not be written to
 * or cancelled again (it would fail on the connection it no longer has).
 */
class CopyIn {
  private readonly stream: CopyStreamQuery;
  private readonly done: Promise<void>;
  private refused: Error | undefined;
  private buffered = '';

  constructor(
    client: pg.PoolClient,
    statement: string,
    readonly table: string,
    readonly line: number,
  ) {
    this.stream = client.query(copyFrom(statement));
    this.stream.on('error', (error) => {
      this.refused ??= error;
    });
    this.done = completion(this.stream);
  }

  async push(row: string): Promise<void> {
    this.buffered += row + '\n';
    if (this.buffered.length >= COPY_CHUNK) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.refused) throw this.refused;
    const chunk = this.buffered;
    this.buffered = '';
    await write(this.stream, this.done, chunk);
  }

  /** Finishes the COPY; the number of rows PostgreSQL stored. */
  async end(): Promise<number> {
    if (this.buffered) await this.flush();
    this.stream.end();
    await this.done;
    return this.stream.rowCount;
  }

  /** Cancels the COPY (CopyFail) unless PostgreSQL ended it already, so the connection can roll back. */
  async abort(): Promise<void> {
    if (!this.refused) this.stream.destroy(new Error('db import stopped'));
    await this.done.catch(() => undefined);
  }
}

const COPY_LINE = /^COPY ("(?:[^"]|"")+") \(("(?:[^"]|"")+"(?:, "(?:[^"]|"")+")*)\) FROM stdin;$/;
const ROWS_LINE = /^-- rows: (\d+)$/;
const SETVAL_LINE = /^SELECT pg_catalog\.setval\(pg_catalog\.pg_get_serial_sequence\(('(?:[^']|'')*'), ('(?:[^']|'')*')\), (-?\d+), (true|false)\);$/;
const END_LINE = /^-- end of dump: (\d+) tables, (\d+) rows$/;
const DEFER_LINE = /^ALTER TABLE ("(?:[^"]|"")+") ALTER CONSTRAINT ("(?:[^"]|"")+") (DEFERRABLE INITIALLY DEFERRED|NOT DEFERRABLE INITIALLY IMMEDIATE);$/;
/** Lines the format has for psql that the import's own transaction and connection already cover. */
const AUDIT_OFF = "SET audit.disabled = 'on';";
const FOR_PSQL = new Set(["SET client_encoding = 'UTF8';", AUDIT_OFF, 'BEGIN;']);
const CHECK_DEFERRED = 'SET CONSTRAINTS ALL IMMEDIATE;';

/** Runs the dump's statements inside the caller's transaction; checks every count it records. */
async function loadDump(client: pg.PoolClient, file: string, targetTables: Set<string>): Promise<Omit<TransferSummary, 'file'>> {
  let copy: CopyIn | undefined;
  /** Set after a COPY block: the table whose `-- rows:` line must come next, and how many rows PostgreSQL took. */
  let loaded: { table: string; rows: number } | undefined;
  let tables = 0;
  let rows = 0;
  let end: { tables: number; rows: number } | undefined;
  let committed = false;
  /** Foreign keys the dump deferred and has not yet made immediate again, as `"table" "constraint"`. */
  const deferred = new Set<string>();
  const positions: { table: string; column: string; value: string; called: boolean; line: number }[] = [];
  let number = 0;
  const fail = (message: string): never => {
    throw new TransferError(`${file} line ${number}: ${message}`);
  };
  try {
    for await (const line of readLines(file)) {
      number++;
      if (copy) {
        if (line !== '\\.') {
          await copy.push(line);
          continue;
        }
        loaded = { table: copy.table, rows: await copy.end() };
        copy = undefined;
        continue;
      }
      if (loaded) {
        const count = ROWS_LINE.exec(line);
        if (!count) fail(`expected the row count of "${loaded.table}" ("-- rows: N")`);
        if (Number(count![1]) !== loaded.rows) fail(`the dump says "${loaded.table}" has ${count![1]} rows, but ${loaded.rows} were read`);
        tables++;
        rows += loaded.rows;
        loaded = undefined;
        continue;
      }
      if (committed) {
        if (line !== '') fail('text after COMMIT;');
        continue;
      }
      if (end) {
        if (line === 'COMMIT;') committed = true;
        else if (line !== '') fail('expected COMMIT; after the end of the dump');
        continue;
      }
      if (line === '' || FOR_PSQL.has(line)) continue;
      const copyLine = COPY_LINE.exec(line);
      if (copyLine) {
        const table = unquote(copyLine[1], '"');
        if (!targetTables.has(table)) fail(`the target has no table "${table}"`);
        copy = new CopyIn(client, line, table, number);
        continue;
      }
      const setval = SETVAL_LINE.exec(line);
      if (setval) {
        positions.push({ table: unquote(setval[1], "'"), column: unquote(setval[2], "'"), value: setval[3], called: setval[4] === 'true', line: number });
        continue;
      }
      const defer = DEFER_LINE.exec(line);
      if (defer) {
        const key = `${defer[1]} ${defer[2]}`;
        if (defer[3].startsWith('NOT')) {
          if (!deferred.delete(key)) fail(`${key} was not deferred`);
        } else deferred.add(key);
        await client.query(line);
        continue;
      }
      if (line === CHECK_DEFERRED) {
        await client.query(line);
        continue;
      }
      const endLine = END_LINE.exec(line);
      if (endLine) {
        if (deferred.size > 0) fail(`the foreign keys ${[...deferred].join(', ')} are still deferrable`);
        end = { tables: Number(endLine[1]), rows: Number(endLine[2]) };
        if (end.tables !== tables || end.rows !== rows) fail(`the dump says ${end.tables} tables and ${end.rows} rows, but ${tables} and ${rows} were read`);
        continue;
      }
      if (line === 'COMMIT;') fail('COMMIT; before the end of the dump');
      if (line.startsWith('--')) continue;
      fail(`unexpected "${line.length > 80 ? `${line.slice(0, 80)}...` : line}"`);
    }
    if (copy) throw new TransferError(`${file} ends inside the rows of "${copy.table}" (from line ${copy.line}): the file is cut short`);
    if (loaded || !end || !committed) throw new TransferError(`${file} has no end of dump and COMMIT: the file is cut short`);
    // setval is not undone by a rollback, so sequences move only once nothing else can fail.
    for (const position of positions) {
      number = position.line;
      const { rows: result } = await client.query<{ value: string | null }>(
        'SELECT pg_catalog.setval(pg_catalog.pg_get_serial_sequence($1, $2), $3::bigint, $4::boolean)::text AS value',
        [position.table, position.column, position.value, position.called],
      );
      if (result[0].value === null) fail(`the target has no sequence for ${position.table}.${position.column}`);
    }
    return end;
  } catch (error) {
    await copy?.abort();
    if (error instanceof TransferError) throw error;
    const context = (error as { where?: string }).where;
    if (!copy) throw new TransferError(`${file} line ${number}: ${(error as Error).message}${context ? ` (${context})` : ''}`);
    // PostgreSQL counts the rows of the COPY, which start on the line after the statement.
    const row = /^COPY .*?, line (\d+)/.exec(context ?? '');
    const line = row ? `line ${copy.line + Number(row[1])}` : `the rows from line ${copy.line}`;
    throw new TransferError(`${file} ${line} (rows of "${copy.table}"): ${(error as Error).message}${context ? ` (${context})` : ''}`);
  }
}

/**
 * Loads the dump `file` into the PostgreSQL database `url` names, which must hold no rows
 * (missing tables are made by applying the migrations first). Everything loads in one
 * transaction: on any failure nothing of the dump stays.
 */
export async function importDump(url: string, file: string): Promise<TransferSummary> {
  if (describeUrl(url).kind !== 'postgresql') {
    throw new TransferError(`db import loads into PostgreSQL: DATABASE_URL must be a postgresql:// URL, got "${url}"`);
  }
  const source = path.resolve(file);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(source);
  } catch (error) {
    throw new TransferError(`cannot read ${source}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (!stat.isFile()) throw new TransferError(`${source} is not a file`);
  const dumpDiff = describeDiff(diffMigrations(await readHeader(source)), ['missing', 'unknown', 'changed']);
  if (dumpDiff.length > 0) {
    throw new TransferError(`${source} was made at other migrations than prisma/migrations has (${dumpDiff.join('; ')}); import it with the version of the service that exported it`);
  }

  const pool = keepPoolAlive(new pg.Pool({ connectionString: url, max: 1 }));
  await checkReachable(pool, url);
  const client = await pool.connect();
  let broken = false;
  try {
    // Checked before migrating, so a database that holds data is left exactly as it was.
    const withRows = await tablesWithRows(client, await tablesIn(client));
    if (withRows.length > 0) refuseData(withRows);
    const sql = pgChannel(client);
    const targetDiff = describeDiff(diffMigrations((await appliedMigrations(sql)) ?? []), ['unknown', 'changed', 'unfinished']);
    if (targetDiff.length > 0) {
      throw new TransferError(`the target database's migrations differ from prisma/migrations (${targetDiff.join('; ')}); db import changed nothing`);
    }
    await applyMigrations({ session: (fn) => fn(sql) }).catch((error: unknown) => {
      throw error instanceof MigrationError ? new TransferError(`migrating the target database failed: ${error.message}`) : error;
    });
    const tables = await tablesIn(client);
    await client.query('BEGIN');
    try {
      // Locked, the tables stay empty and unwritten by anyone else until the dump is in.
      await client.query(`LOCK TABLE ${tables.map(ident).join(', ')} IN EXCLUSIVE MODE`);
      // Whatever the dump says: its rows bring their own audit trail (see the header).
      await client.query("SET LOCAL audit.disabled = 'on'");
      const filled = await tablesWithRows(client, tables);
      if (filled.length > 0) refuseData(filled);
      const summary = await loadDump(client, source, new Set(tables));
      await client.query('COMMIT');
      return { ...summary, file: source };
    } catch (error) {
      // A connection that cannot even roll back is closed: PostgreSQL then rolls back itself.
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    }
  } finally {
    client.release(broken);
    await pool.end();
  }
}
