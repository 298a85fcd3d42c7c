// Compiles a Prisma read (the arguments of findMany, findUnique, findFirst, count: `where`,
// `orderBy`, `take`, `skip`, `cursor`, and the `select`/`include` tree that plugin-prisma
// plans from a GraphQL selection) into ONE SQL statement whose result PostgreSQL builds as
// plain JSON, each row an array of its values that the statement's RowShape makes the object
// Prisma would answer (rowShape.ts): every relation nested under its field name; amounts
// as exact decimal text; timestamps as ISO 8601 text (what `Date#toISOString` writes, which
// rowShape.ts finishes from the form PostgreSQL writes in JSON);
// 64-bit integers as text. Nothing is read as a float and no row is materialised twice.
//
// The compiler is generic over the read model (src/generated/readModel.ts). A Prisma
// argument it does not know is refused with UnsupportedRead rather than guessed at.
import { DERIVED_VALUES } from './derived.ts';
import type { ReadModel, ReadModelField, ReadModelModel } from './model.ts';
import type { RowShape, ValueReading } from './rowShape.ts';

export class UnsupportedRead extends Error {}

/**
 * The `where` key of a search document (the migration search_documents keeps one in the column
 * "searchText" of orders, returns, customers and products; Prisma does not know it):
 * `{ searchText: { contains: 'gmai' } }` holds where the folded document contains the folded
 * word, which the store's trigram index answers; `{ searchText: { containsPhrase: 'sam7 shopper' } }`
 * where it holds the folded words in a row with any run of white space (a field boundary is a
 * line break) between them, a regular expression the same index answers. String columns (and lists of them) also take
 * `containsFolded` and `equalsFolded`: the same folding (case and accents) applied to the
 * column, for narrowing rows the document already found to one field.
 */
export const SEARCH_DOCUMENT = 'searchText';

export interface CompiledRead {
  sql: string;
  params: unknown[];
  /** The statement searches text (a search document or a folded filter): a read to bound in time. */
  searches: boolean;
}

/**
 * Where the read's Dates went: `params[index]` is `date`'s text (parameterText) for each slot;
 * `elsewhere` when a Date also went into a list or a pattern's text. The compiler never writes a
 * value into the statement's text and decides its shape by a value's kind (null, a Date, an
 * object ...) alone, so where `elsewhere` is false the same text serves the read with other Dates
 * in the slots (reader.ts keys reads so).
 */
export interface DateSlots {
  slots: { index: number; date: Date }[];
  elsewhere: boolean;
}

type Args = Record<string, unknown>;
type Where = Record<string, unknown>;

const ISO_TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
/** json_build_object and json_build_array take at most 100 arguments (FUNC_MAX_ARGS). */
const MAX_FUNCTION_ARGUMENTS = 100;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date) && !isDecimalLike(value);

function isDecimalLike(value: unknown): value is { toFixed(): string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toFixed?: unknown }).toFixed === 'function' &&
    typeof (value as { decimalPlaces?: unknown }).decimalPlaces === 'function'
  );
}

interface OrderTerm {
  expression: string;
  direction: 'asc' | 'desc';
  nulls?: 'first' | 'last';
  /** The column the term sorts by, when it is one of the model's own (cursors need it). */
  field?: ReadModelField;
}

/** One compilation: the parameters collected so far, the aliases handed out and the columns read through each. */
class Statement {
  readonly params: unknown[] = [];
  readonly dates: DateSlots = { slots: [], elsewhere: false };
  private aliases = 0;
  /** Per alias, the columns the statement reads from its rows: what a page's subquery must carry out. */
  private readonly columnsRead = new Map<string, Set<string>>();
  /**
   * Per alias of a list relation's rows, the row they belong to: their key columns equal its
   * columns ([its column, the rows' column] pairs), so a to-one relation from one of them back
   * to it (an item's `return`, a line's `order`) is that row, read without a join of its own.
   */
  private readonly belongsTo = new Map<string, { model: ReadModelModel; alias: string; pairs: [string, string][] }>();
  /**
   * Per FROM clause (the list its row joins are collected in), the alias each to-one relation is
   * LEFT JOINed at, by `alias.relation`: a list sorted by a relation it also selects (items by
   * their order line's position) joins that row once. Kept per clause because a row read back
   * through belongsTo is joined from in several clauses, and an alias is seen only in its own.
   */
  private readonly joinedToOne = new WeakMap<string[], Map<string, string>>();
  /** How many relation reads per parent row the filter being compiled is inside (see relationFilter). */
  private withinRelation = 0;
  searches = false;

  constructor(readonly model: ReadModel) {}

  alias(): string {
    return `t${this.aliases++}`;
  }

  /** `alias.column`, noted as read through `alias`. */
  column(alias: string, column: string): string {
    let read = this.columnsRead.get(alias);
    if (!read) this.columnsRead.set(alias, (read = new Set()));
    read.add(column);
    return `${alias}.${quote(column)}`;
  }

  /** The columns read through `alias` so far. */
  columnsReadThrough(alias: string): string[] {
    return [...(this.columnsRead.get(alias) ?? [])];
  }

  modelOf(name: string): ReadModelModel {
    const model = this.model.models[name];
    if (!model) throw new UnsupportedRead(`unknown model ${name}`);
    return model;
  }

  field(model: ReadModelModel, name: string): ReadModelField | undefined {
    return model.fields.find((f) => f.name === name);
  }

  /** A parameter placeholder cast to the column's type, so every statement text is typed and reusable. */
  param(value: unknown, field: ReadModelField, list = false): string {
    if (value instanceof Date && !list) this.dates.slots.push({ index: this.params.length, date: value });
    else if (holdsDate(value)) this.dates.elsewhere = true;
    this.params.push(list ? arrayLiteral(value as unknown[]) : parameterText(value));
    return `$${this.params.length}::${this.sqlType(field)}${list ? '[]' : ''}`;
  }

  intParam(value: number): string {
    this.params.push(value);
    return `$${this.params.length}::int`;
  }

  textParam(value: string): string {
    this.params.push(value);
    return `$${this.params.length}::text`;
  }

  sqlType(field: ReadModelField): string {
    if (field.kind === 'enum') return quote(this.model.enums[field.type] ?? field.type);
    switch (field.type) {
      case 'String':
        return 'text';
      case 'Int':
        return 'int4';
      case 'BigInt':
        return 'int8';
      case 'Float':
        return 'float8';
      case 'Boolean':
        return 'bool';
      case 'Decimal':
        return 'numeric';
      case 'DateTime':
        return field.nativeType === 'Date' ? 'date' : 'timestamp(3)';
      case 'Json':
        return 'jsonb';
      default:
        throw new UnsupportedRead(`no parameter type for ${field.type}`);
    }
  }

  // ------------------------------------------------------------ values

  /** The JSON value of a scalar column, in the plain form described at the top. */
  scalar(alias: string, field: ReadModelField): string {
    const column = this.column(alias, field.column);
    if (field.isList && (field.type === 'DateTime' || field.type === 'Decimal' || field.type === 'BigInt')) {
      throw new UnsupportedRead(`list of ${field.type} (${field.name})`);
    }
    switch (field.type) {
      case 'DateTime':
        return `to_char(${column}::timestamp, ${ISO_TIMESTAMP})`;
      case 'Decimal':
        return `trim_scale(${column})::text`;
      case 'BigInt':
        return `${column}::text`;
      case 'Bytes':
        throw new UnsupportedRead(`Bytes (${field.name})`);
      default:
        // Prisma answers a NULL list column as an empty list.
        return field.isList ? `coalesce(${column}, '{}')` : column;
    }
  }

  /**
   * The JSON array of one row of `model` at `alias`, with the selection `args` describes, and its
   * shape (the keys, in the array's order, that make it Prisma's object). Given
   * `joins`, the FROM clause of a query whose rows are already chosen (no LIMIT after them), its
   * to-one relations are LEFT JOINs added there (one hash or merge join, where a correlated
   * subquery would run once per row); without, they are subqueries, which a LIMIT over the rows
   * runs only for the rows it keeps.
   */
  row(model: ReadModelModel, alias: string, args: Args, joins?: string[]): { sql: string; shape: RowShape } {
    const values: string[] = [];
    const shape: RowShape = { keys: [], readings: [] };
    const add = (key: string, sql: string, reading?: ValueReading) => {
      values.push(sql);
      shape.keys.push(key);
      shape.readings.push(reading);
    };
    const select = args.select as Args | undefined;
    const include = args.include as Args | undefined;
    const omit = (args.omit as Args | undefined) ?? {};
    if (select && include) throw new UnsupportedRead('select and include together');
    const wanted: [string, unknown][] = select
      ? Object.entries(select).filter(([, value]) => value)
      : [
          ...model.fields.filter((f) => f.kind !== 'object' && !omit[f.name]).map((f): [string, unknown] => [f.name, true]),
          ...Object.entries(include ?? {}).filter(([, value]) => value),
        ];
    for (const [key, value] of wanted) {
      if (key === '_count') {
        add(key, this.counts(model, alias, value));
        continue;
      }
      const field = this.field(model, key);
      if (!field) {
        add(key, this.derived(model, alias, key));
        continue;
      }
      if (field.kind === 'object') {
        const relation = this.relation(model, alias, field, value === true ? {} : (value as Args), joins);
        add(key, relation.sql, relation.reading);
      } else if (field.type === 'DateTime' && !field.isList) {
        // PostgreSQL writes a timestamp (a date as its midnight) in JSON cheaper than to_char does; rowShape.ts finishes it.
        add(key, `${this.column(alias, field.column)}::timestamp`, 'timestamp');
      } else add(key, this.scalar(alias, field));
    }
    // A model has fewer fields than that (Store, the widest, 49): a row of more is no read of the model.
    if (values.length > MAX_FUNCTION_ARGUMENTS) throw new UnsupportedRead(`a row of ${model.name} with ${values.length} values`);
    return { sql: `json_build_array(${values.join(', ')})`, shape };
  }

  /** A value derived.ts defines for `model`, computed from the row's columns at `alias`. */
  private derived(model: ReadModelModel, alias: string, name: string): string {
    const values = Object.hasOwn(DERIVED_VALUES, model.name) ? DERIVED_VALUES[model.name] : {};
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (!value) throw new UnsupportedRead(`${model.name} has no field ${name}`);
    return `(${value.sql((fieldName) => {
      const field = this.field(model, fieldName);
      if (!field || field.kind === 'object') throw new UnsupportedRead(`${model.name}.${name} derives from ${fieldName}, no column`);
      return this.column(alias, field.column);
    })})`;
  }

  /** `_count: true | { select: { relation: true | { where } } }` as Prisma answers it. */
  private counts(model: ReadModelModel, alias: string, value: unknown): string {
    const selected: [string, unknown][] =
      value === true
        ? model.fields.filter((f) => f.kind === 'object' && f.isList).map((f) => [f.name, true])
        : Object.entries(((value as Args).select as Args | undefined) ?? {}).filter(([, v]) => v);
    const entries = selected.map(([name, relationArgs]): [string, string] => {
      const field = this.field(model, name);
      if (!field || field.kind !== 'object' || !field.isList) throw new UnsupportedRead(`_count of ${model.name}.${name}`);
      const target = this.modelOf(field.type);
      const child = this.alias();
      const where = relationArgs === true ? undefined : ((relationArgs as Args).where as Where | undefined);
      const conditions = [this.join(model, alias, field, target, child), this.relationWhere(target, child, where)].filter(Boolean);
      return [name, `(SELECT count(*)::int FROM ${quote(target.table)} ${child} WHERE ${conditions.join(' AND ')})`];
    });
    return countsObject(entries);
  }

  /** The condition tying a row `child` of `target` to its `parent` row through `field`. */
  join(parentModel: ReadModelModel, parent: string, field: ReadModelField, target: ReadModelModel, child: string): string {
    const pairs = this.keyPairs(parentModel, field, target);
    return pairs.map(([parentColumn, childColumn]) => `${child}.${quote(childColumn)} = ${this.column(parent, parentColumn)}`).join(' AND ');
  }

  /** [parent column, child column] pairs of a relation, from whichever side holds the key. */
  private keyPairs(parentModel: ReadModelModel, field: ReadModelField, target: ReadModelModel): [string, string][] {
    const column = (model: ReadModelModel, name: string) => {
      const f = this.field(model, name);
      if (!f) throw new UnsupportedRead(`${model.name} has no field ${name}`);
      return f.column;
    };
    if (field.relationFromFields && field.relationFromFields.length > 0) {
      return field.relationFromFields.map((from, i) => [column(parentModel, from), column(target, field.relationToFields![i])]);
    }
    const back = target.fields.find(
      (f) => f.kind === 'object' && f.relationName === field.relationName && f !== field && (f.relationFromFields?.length ?? 0) > 0,
    );
    if (!back) throw new UnsupportedRead(`no key for ${parentModel.name}.${field.name}`);
    return back.relationFromFields!.map((from, i) => [column(parentModel, back.relationToFields![i]), column(target, from)]);
  }

  /**
   * A relation of the row at `parent`, nested as Prisma nests it: an object or null, or a list.
   * `joins`: the FROM clause the parent row's query lets to-one relations join (see row).
   */
  private relation(
    parentModel: ReadModelModel,
    parent: string,
    field: ReadModelField,
    args: Args,
    joins: string[] | undefined,
  ): { sql: string; reading: ValueReading } {
    const target = this.modelOf(field.type);
    if (!field.isList) {
      for (const key of ['where', 'orderBy', 'take', 'skip', 'cursor', 'distinct']) {
        if (args[key] !== undefined) throw new UnsupportedRead(`${key} on the to-one relation ${parentModel.name}.${field.name}`);
      }
      const owner = this.ownerReachedThrough(parentModel, parent, field, target);
      if (owner !== undefined) {
        const { sql, shape } = this.row(target, owner, args, joins);
        return { sql, reading: { row: shape } };
      }
      if (joins) {
        // The key is unique on the target's side (Prisma requires it of a to-one relation), so the
        // join keeps one row per parent row; a key column of the target is null only where none matched.
        let joined = this.joinedToOne.get(joins);
        if (!joined) this.joinedToOne.set(joins, (joined = new Map()));
        const key = `${parent}.${field.name}`;
        let child = joined.get(key);
        if (child === undefined) {
          child = this.alias();
          joined.set(key, child);
          joins.push(` LEFT JOIN ${quote(target.table)} ${child} ON ${this.join(parentModel, parent, field, target, child)}`);
        }
        const [[, matchedColumn]] = this.keyPairs(parentModel, field, target);
        const { sql, shape } = this.row(target, child, args, joins);
        return { sql: `CASE WHEN ${child}.${quote(matchedColumn)} IS NULL THEN NULL ELSE ${sql} END`, reading: { row: shape } };
      }
      const child = this.alias();
      const link = this.join(parentModel, parent, field, target, child);
      const ownJoins: string[] = [];
      const { sql, shape } = this.row(target, child, args, ownJoins);
      return { sql: `(SELECT ${sql} FROM ${quote(target.table)} ${child}${ownJoins.join('')} WHERE ${link} LIMIT 1)`, reading: { row: shape } };
    }
    const page = this.page(target, args);
    const link = (alias: string) => this.join(parentModel, parent, field, target, alias);
    const belongs = (rows: string) => this.belongsTo.set(rows, { model: parentModel, alias: parent, pairs: this.keyPairs(parentModel, field, target) });
    if (page.take === undefined && page.skip === undefined && page.cursor === undefined) {
      const child = this.alias();
      belongs(child);
      const order = this.orderBy(target, child, args.orderBy);
      const conditions = [link(child), this.relationWhere(target, child, args.where as Where | undefined)].filter(Boolean);
      const rowJoins: string[] = [];
      this.joinedToOne.set(rowJoins, order.joined);
      const { sql, shape } = this.row(target, child, args, ordersEveryRow(target, order.terms) ? rowJoins : undefined);
      return {
        sql: `(SELECT coalesce(json_agg(${sql}${orderClause(order.terms)}), '[]'::json) FROM ${quote(target.table)} ${child}${order.joins}${rowJoins.join('')} WHERE ${conditions.join(' AND ')})`,
        reading: { rows: shape },
      };
    }
    // A page of the relation: chosen in a subquery (which may sort the other way, for a negative
    // take), then aggregated in the asked order. Sort keys from joined rows travel as columns; of
    // the page's own columns only those the aggregate reads (its row, keys, sort) travel out.
    const inner = this.alias();
    const order = this.orderBy(target, inner, args.orderBy);
    const terms = this.withCursorTiebreak(target, inner, order.terms, page.cursor);
    const scan = page.backward ? terms.map(reversed) : terms;
    const conditions = [
      link(inner),
      this.relationWhere(target, inner, args.where as Where | undefined),
      page.cursor ? this.cursorCondition(target, inner, scan, page.cursor) : '',
    ].filter(Boolean);
    const outer = this.alias();
    belongs(outer);
    const carried = terms.map((term, i) => (term.field ? null : `${term.expression} AS "__sort${i}"`)).filter(Boolean);
    const outerTerms = terms.map((term, i) => ({
      ...term,
      expression: term.field ? this.column(outer, term.field.column) : `${outer}."__sort${i}"`,
    }));
    const limits = [
      page.take !== undefined ? ` LIMIT ${this.intParam(page.take)}` : '',
      page.skip !== undefined ? ` OFFSET ${this.intParam(page.skip)}` : '',
    ].join('');
    const rowJoins: string[] = [];
    const { sql, shape } = this.row(target, outer, args, ordersEveryRow(target, terms) ? rowJoins : undefined);
    const columns = this.columnsReadThrough(outer).map((column) => `${inner}.${quote(column)}`);
    const subquery =
      `SELECT ${[...columns, ...carried].join(', ')} FROM ${quote(target.table)} ${inner}${order.joins} ` +
      `WHERE ${conditions.join(' AND ')}${orderClause(scan)}${limits}`;
    return { sql: `(SELECT coalesce(json_agg(${sql}${orderClause(outerTerms)}), '[]'::json) FROM (${subquery}) ${outer}${rowJoins.join('')})`, reading: { rows: shape } };
  }

  /** The alias of the row that the rows at `alias` belong to, when the to-one `field` leads back to it (see belongsTo). */
  private ownerReachedThrough(model: ReadModelModel, alias: string, field: ReadModelField, target: ReadModelModel): string | undefined {
    const owner = this.belongsTo.get(alias);
    if (!owner || owner.model !== target) return undefined;
    const pairs = this.keyPairs(model, field, target);
    const same =
      pairs.length === owner.pairs.length &&
      pairs.every(([ownColumn, targetColumn]) => owner.pairs.some(([ownerColumn, rowColumn]) => rowColumn === ownColumn && ownerColumn === targetColumn));
    return same ? owner.alias : undefined;
  }

  // ------------------------------------------------------------ paging

  page(model: ReadModelModel, args: Args): { take?: number; skip?: number; backward: boolean; cursor?: Where } {
    if (args.distinct !== undefined) throw new UnsupportedRead(`distinct on ${model.name}`);
    const take = args.take as number | undefined;
    const skip = args.skip as number | undefined;
    for (const [name, value] of [['take', take], ['skip', skip]] as const) {
      if (value !== undefined && !Number.isSafeInteger(value)) throw new UnsupportedRead(`${name} must be an integer`);
    }
    if (skip !== undefined && skip < 0) throw new UnsupportedRead('skip must not be negative');
    return {
      take: take === undefined ? undefined : Math.abs(take),
      skip: skip || undefined,
      backward: take !== undefined && take < 0,
      cursor: args.cursor as Where | undefined,
    };
  }

  /** A cursor names one row; sorting by its unique key too makes "from the cursor on" exact. */
  withCursorTiebreak(model: ReadModelModel, alias: string, terms: OrderTerm[], cursor: Where | undefined): OrderTerm[] {
    if (!cursor) return terms;
    const unique = this.uniqueFields(model, cursor);
    const sorted = new Set(terms.map((t) => t.field?.name));
    const missing = unique.filter((f) => !sorted.has(f.name));
    return [...terms, ...missing.map((field): OrderTerm => ({ expression: `${alias}.${quote(field.column)}`, direction: 'asc', field }))];
  }

  private uniqueFields(model: ReadModelModel, where: Where): ReadModelField[] {
    const names = Object.keys(where).flatMap((key) => {
      const compound = model.uniques.find((u) => u.name === key && u.fields.length > 1);
      return compound ? compound.fields : [key];
    });
    return names.map((name) => {
      const field = this.field(model, name);
      if (!field || field.kind === 'object') throw new UnsupportedRead(`cursor on ${model.name}.${name}`);
      return field;
    });
  }

  /**
   * Rows at or after the cursor row in the scan order (Prisma's cursor includes its row; `skip: 1`
   * leaves it out). A cursor naming no row yields no rows, as in Prisma.
   */
  cursorCondition(model: ReadModelModel, alias: string, terms: OrderTerm[], cursor: Where): string {
    const cursorAlias = this.alias();
    const cursorWhere = this.where(model, cursorAlias, cursor);
    const values = terms.map((term) => {
      if (!term.field) throw new UnsupportedRead(`a cursor with an order on a related model of ${model.name}`);
      return `(SELECT ${cursorAlias}.${quote(term.field.column)} FROM ${quote(model.table)} ${cursorAlias} WHERE ${cursorWhere})`;
    });
    const equal = (i: number) =>
      terms[i].field!.isRequired ? `${terms[i].expression} = ${values[i]}` : `${terms[i].expression} IS NOT DISTINCT FROM ${values[i]}`;
    const branches = terms.map((term, i) => [...terms.slice(0, i).map((_, j) => equal(j)), after(term, values[i])].join(' AND '));
    branches.push(terms.map((_, i) => equal(i)).join(' AND '));
    return `EXISTS (SELECT 1 FROM ${quote(model.table)} ${cursorAlias} WHERE ${cursorWhere}) AND (${branches.map((b) => `(${b})`).join(' OR ')})`;
  }

  // ------------------------------------------------------------ ordering

  /** `joins`: the LEFT JOINs the terms read through; `joined`: their aliases, by `alias.relation` (see joinedToOne). */
  orderBy(model: ReadModelModel, alias: string, orderBy: unknown): { terms: OrderTerm[]; joins: string; joined: Map<string, string> } {
    const terms: OrderTerm[] = [];
    const joined = new Map<string, string>();
    let joins = '';
    const list = orderBy === undefined ? [] : Array.isArray(orderBy) ? orderBy : [orderBy];
    const walk = (current: ReadModelModel, currentAlias: string, spec: Args) => {
      for (const [key, value] of Object.entries(spec)) {
        if (value === undefined) continue;
        const field = this.field(current, key);
        if (!field) throw new UnsupportedRead(`orderBy ${current.name}.${key}`);
        if (field.kind === 'object') {
          if (field.isList) throw new UnsupportedRead(`orderBy over the list relation ${current.name}.${key}`);
          const target = this.modelOf(field.type);
          const relationAlias = this.alias();
          joined.set(`${currentAlias}.${field.name}`, relationAlias);
          joins += ` LEFT JOIN ${quote(target.table)} ${relationAlias} ON ${this.join(current, currentAlias, field, target, relationAlias)}`;
          walk(target, relationAlias, value as Args);
          continue;
        }
        const expression = `${currentAlias}.${quote(field.column)}`;
        const own = current === model ? field : undefined;
        if (value === 'asc' || value === 'desc') terms.push({ expression, direction: value, field: own });
        else if (isPlainObject(value) && (value.sort === 'asc' || value.sort === 'desc')) {
          const nulls = value.nulls as 'first' | 'last' | undefined;
          terms.push({ expression, direction: value.sort, nulls, field: own });
        } else throw new UnsupportedRead(`orderBy ${current.name}.${key}: ${JSON.stringify(value)}`);
      }
    };
    for (const spec of list) walk(model, alias, spec as Args);
    return { terms, joins, joined };
  }

  // ------------------------------------------------------------ filters

  /** A Prisma `where` as a SQL condition on the row at `alias` ('' when it filters nothing). */
  where(model: ReadModelModel, alias: string, where: Where | undefined): string {
    if (!where) return '';
    const parts: string[] = [];
    for (const [key, value] of Object.entries(where)) {
      if (value === undefined) continue;
      if (key === 'AND' || key === 'OR' || key === 'NOT') {
        const list = (Array.isArray(value) ? value : [value]) as Where[];
        const inner = list.map((w) => this.where(model, alias, w) || 'true');
        if (key === 'AND') parts.push(inner.length ? `(${inner.join(' AND ')})` : 'true');
        else if (key === 'OR') parts.push(inner.length ? `(${inner.join(' OR ')})` : 'false');
        else parts.push(inner.length ? `NOT (${inner.join(' OR ')})` : 'true');
        continue;
      }
      if (key === SEARCH_DOCUMENT) {
        parts.push(this.searchDocumentFilter(alias, value));
        continue;
      }
      const field = this.field(model, key);
      if (!field) {
        const compound = model.uniques.find((u) => u.name === key && u.fields.length > 1);
        if (!compound || !isPlainObject(value)) throw new UnsupportedRead(`where ${model.name}.${key}`);
        parts.push(this.where(model, alias, value));
        continue;
      }
      parts.push(field.kind === 'object' ? this.relationFilter(model, alias, field, value) : this.scalarFilter(alias, field, value));
    }
    return parts.filter(Boolean).join(' AND ');
  }

  /** The `where` of a relation read per row of its parent (a list's rows, a count): see relationFilter. */
  private relationWhere(model: ReadModelModel, alias: string, where: Where | undefined): string {
    this.withinRelation++;
    try {
      return this.where(model, alias, where);
    } finally {
      this.withinRelation--;
    }
  }

  private searchDocumentFilter(alias: string, value: unknown): string {
    const [op, text] = isPlainObject(value) && Object.keys(value).length === 1 ? Object.entries(value)[0] : [];
    if (typeof text !== 'string' || (op !== 'contains' && op !== 'containsPhrase')) {
      throw new UnsupportedRead(`${SEARCH_DOCUMENT} takes only { contains: string } or { containsPhrase: string }`);
    }
    this.searches = true;
    const column = `${alias}.${quote(SEARCH_DOCUMENT)}`;
    return op === 'contains' ? `${column} LIKE ${this.foldedPattern(text)}` : `${column} ~ ${this.phrasePattern(text)}`;
  }

  /** `%word%`, LIKE's own characters escaped, folded as the documents are (search_fold). */
  private foldedPattern(text: string): string {
    this.searches = true;
    return `'%' || search_fold(${this.textParam(text.replace(/[\\%_]/g, (c) => `\\${c}`))}) || '%'`;
  }

  /**
   * The folded phrase as a regular expression: every character but letters, digits and white
   * space escaped (after folding, which may make punctuation), each run of white space any run.
   */
  private phrasePattern(text: string): string {
    const folded = `search_fold(${this.textParam(text)})`;
    return `regexp_replace(regexp_replace(${folded}, '[^[:alnum:][:space:]]', ${literal(String.raw`\\\&`)}, 'g'), '[[:space:]]+', '[[:space:]]+', 'g')`;
  }

  private relationFilter(model: ReadModelModel, alias: string, field: ReadModelField, value: unknown): string {
    const target = this.modelOf(field.type);
    // Inside a relation read per parent row, a to-one relation's row is looked up by its key for
    // each of the few rows filtered: OFFSET 0 keeps PostgreSQL from making the EXISTS a join it
    // may turn round. A generic plan did, on a parameter it could not estimate (a line's claiming
    // items, `return: { status: { notIn } }`): it scanned every return and, for each, every
    // item, per line, and the /v3/rest returns page took 26 ms instead of 2.5.
    const fence = !field.isList && this.withinRelation > 0 ? ' OFFSET 0' : '';
    const exists = (where: Where | undefined, negate = false) => {
      const child = this.alias();
      const conditions = [this.join(model, alias, field, target, child), negate ? `NOT (${this.where(target, child, where) || 'true'})` : this.where(target, child, where)];
      return `EXISTS (SELECT 1 FROM ${quote(target.table)} ${child} WHERE ${conditions.filter(Boolean).join(' AND ')}${fence})`;
    };
    if (field.isList) {
      if (!isPlainObject(value)) throw new UnsupportedRead(`where ${model.name}.${field.name}`);
      const parts: string[] = [];
      for (const [op, inner] of Object.entries(value)) {
        if (inner === undefined) continue;
        if (op === 'some') parts.push(exists(inner as Where));
        else if (op === 'none') parts.push(`NOT ${exists(inner as Where)}`);
        else if (op === 'every') parts.push(`NOT ${exists(inner as Where, true)}`);
        else throw new UnsupportedRead(`where ${model.name}.${field.name}.${op}`);
      }
      return parts.join(' AND ');
    }
    if (value === null) return `NOT ${exists(undefined)}`;
    if (!isPlainObject(value)) throw new UnsupportedRead(`where ${model.name}.${field.name}`);
    if ('is' in value || 'isNot' in value) {
      const parts: string[] = [];
      if (value.is !== undefined) parts.push(value.is === null ? `NOT ${exists(undefined)}` : exists(value.is as Where));
      if (value.isNot !== undefined) parts.push(value.isNot === null ? exists(undefined) : `NOT ${exists(value.isNot as Where)}`);
      return parts.join(' AND ');
    }
    return exists(value);
  }

  private scalarFilter(alias: string, field: ReadModelField, value: unknown): string {
    const column = `${alias}.${quote(field.column)}`;
    if (field.type === 'Json') {
      if (value === null) throw new UnsupportedRead(`a Json filter (${field.name}) needs Prisma.DbNull or JsonNull`);
      throw new UnsupportedRead(`a Json filter (${field.name})`);
    }
    if (value === null) return `${column} IS NULL`;
    if (!isPlainObject(value)) return field.isList ? `${column} = ${this.param(value, field, true)}` : `${column} = ${this.param(value, field)}`;
    if ('containsFolded' in value || 'equalsFolded' in value) return this.foldedFilter(column, field, value);
    if (field.isList) return this.scalarListFilter(column, field, value);
    const insensitive = value.mode === 'insensitive';
    const text = (expression: string) => (insensitive ? `lower(${expression})` : expression);
    const parts: string[] = [];
    for (const [op, operand] of Object.entries(value)) {
      if (operand === undefined || op === 'mode') continue;
      switch (op) {
        case 'equals':
          parts.push(operand === null ? `${column} IS NULL` : `${text(column)} = ${text(this.param(operand, field))}`);
          break;
        case 'not':
          if (operand === null) parts.push(`${column} IS NOT NULL`);
          else if (isPlainObject(operand)) parts.push(`NOT (${this.scalarFilter(alias, field, { ...operand, mode: value.mode })})`);
          else parts.push(`${text(column)} <> ${text(this.param(operand, field))}`);
          break;
        case 'in':
        case 'notIn': {
          const list = operand as unknown[];
          const any = insensitive ? `lower(${column}) = ANY(SELECT lower(v) FROM unnest(${this.param(list, field, true)}) v)` : `${column} = ANY(${this.param(list, field, true)})`;
          parts.push(op === 'in' ? any : `NOT (${any})`);
          break;
        }
        case 'lt':
        case 'lte':
        case 'gt':
        case 'gte': {
          const symbol = { lt: '<', lte: '<=', gt: '>', gte: '>=' }[op];
          parts.push(`${column} ${symbol} ${this.param(operand, field)}`);
          break;
        }
        case 'contains':
        case 'startsWith':
        case 'endsWith': {
          if (holdsDate(operand)) this.dates.elsewhere = true;
          const escaped = String(operand).replace(/[\\%_]/g, (c) => `\\${c}`);
          const pattern = op === 'contains' ? `%${escaped}%` : op === 'startsWith' ? `${escaped}%` : `%${escaped}`;
          parts.push(`${column} ${insensitive ? 'ILIKE' : 'LIKE'} ${this.textParam(pattern)}`);
          break;
        }
        default:
          throw new UnsupportedRead(`filter ${op} on ${field.name}`);
      }
    }
    return parts.join(' AND ');
  }

  /** containsFolded / equalsFolded on a text column, or on any element of a text list. */
  private foldedFilter(column: string, field: ReadModelField, value: Record<string, unknown>): string {
    if (field.type !== 'String') throw new UnsupportedRead(`a folded filter on the ${field.type} ${field.name}`);
    const element = field.isList ? 'e' : column;
    const parts: string[] = [];
    for (const [op, operand] of Object.entries(value)) {
      if (operand === undefined) continue;
      if (typeof operand !== 'string') throw new UnsupportedRead(`${op} on ${field.name} takes a string`);
      if (op === 'containsFolded') parts.push(`search_fold(${element}) LIKE ${this.foldedPattern(operand)}`);
      else if (op === 'equalsFolded') parts.push(`search_fold(${element}) = search_fold(${this.textParam(operand)})`);
      else throw new UnsupportedRead(`filter ${op} beside a folded one on ${field.name}`);
    }
    const condition = parts.join(' AND ');
    return field.isList ? `EXISTS (SELECT 1 FROM unnest(${column}) e WHERE ${condition})` : condition;
  }

  private scalarListFilter(column: string, field: ReadModelField, value: Record<string, unknown>): string {
    const parts: string[] = [];
    for (const [op, operand] of Object.entries(value)) {
      if (operand === undefined) continue;
      switch (op) {
        case 'has':
          parts.push(operand === null ? 'false' : `${this.param(operand, field)} = ANY(${column})`);
          break;
        case 'hasSome':
          parts.push(`${column} && ${this.param(operand, field, true)}`);
          break;
        case 'hasEvery':
          parts.push(`${column} @> ${this.param(operand, field, true)}`);
          break;
        case 'isEmpty':
          parts.push(operand ? `cardinality(${column}) = 0` : `cardinality(${column}) > 0`);
          break;
        case 'equals':
          parts.push(operand === null ? `${column} IS NULL` : `${column} = ${this.param(operand, field, true)}`);
          break;
        default:
          throw new UnsupportedRead(`filter ${op} on the list ${field.name}`);
      }
    }
    return parts.join(' AND ');
  }
}

/** Whether a Date is `value` or inside it (a list's item, an object's value). */
function holdsDate(value: unknown): boolean {
  if (value instanceof Date) return true;
  if (typeof value !== 'object' || value === null) return false;
  return (Array.isArray(value) ? value : Object.values(value)).some(holdsDate);
}

/** A value as the statement's parameter: a Date as its ISO text, a Decimal or bigint as its digits, an object as JSON. */
export function parameterText(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (isDecimalLike(value)) return value.toFixed();
  if (isPlainObject(value) || Array.isArray(value)) return JSON.stringify(value);
  return value;
}

/**
 * An array parameter as PostgreSQL's array literal text, which the statement casts: PGlite
 * sends a JavaScript array as its comma-joined text, so neither driver is left to guess.
 */
function arrayLiteral(values: unknown[]): string {
  const items = values.map((value) => {
    const param = parameterText(value);
    return param === null || param === undefined ? 'NULL' : `"${String(param).replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  });
  return `{${items.join(',')}}`;
}

/** `_count`'s object, as Prisma answers it (a handful of keys: it stays an object, read as it comes). */
function countsObject(entries: [string, string][]): string {
  if (entries.length === 0) return `'{}'::json`;
  if (entries.length <= MAX_FUNCTION_ARGUMENTS / 2) {
    return `json_build_object(${entries.map(([key, value]) => `${literal(key)}, ${value}`).join(', ')})`;
  }
  // More keys than json_build_object takes: a one-row subquery whose columns are the keys.
  return `(SELECT row_to_json(r) FROM (SELECT ${entries.map(([key, value]) => `${value} AS ${quote(key)}`).join(', ')}) r)`;
}

/**
 * The terms sort every row of `model` apart (they cover a unique key of required columns): only
 * then may a list's to-one relations be joined, as a join may feed the aggregate its rows in
 * another order, which only such an order makes no difference to (PostgreSQL's sort is not
 * stable, and a list with no order keeps the order of its scan, as Prisma's answer does).
 */
function ordersEveryRow(model: ReadModelModel, terms: OrderTerm[]): boolean {
  const sorted = new Set(terms.map((term) => term.field?.name));
  return model.uniques.some((unique) =>
    unique.fields.every((name) => sorted.has(name) && model.fields.find((field) => field.name === name)?.isRequired),
  );
}

function orderClause(terms: OrderTerm[]): string {
  if (terms.length === 0) return '';
  return ` ORDER BY ${terms.map((t) => `${t.expression} ${t.direction.toUpperCase()}${t.nulls ? ` NULLS ${t.nulls.toUpperCase()}` : ''}`).join(', ')}`;
}

function reversed(term: OrderTerm): OrderTerm {
  // PostgreSQL's default puts nulls last ascending and first descending; reversing keeps them mirrored.
  const nulls = term.nulls ?? (term.direction === 'asc' ? 'last' : 'first');
  return { ...term, direction: term.direction === 'asc' ? 'desc' : 'asc', nulls: nulls === 'last' ? 'first' : 'last' };
}

/** True where the row's value comes strictly after `cursor` in the term's order. */
function after(term: OrderTerm, cursor: string): string {
  const symbol = term.direction === 'asc' ? '>' : '<';
  if (term.field?.isRequired) return `${term.expression} ${symbol} ${cursor}`;
  const nullsFirst = (term.nulls ?? (term.direction === 'asc' ? 'last' : 'first')) === 'first';
  return (
    `(CASE WHEN ${term.expression} IS NULL AND ${cursor} IS NULL THEN false ` +
    `WHEN ${term.expression} IS NULL THEN ${!nullsFirst} WHEN ${cursor} IS NULL THEN ${nullsFirst} ` +
    `ELSE ${term.expression} ${symbol} ${cursor} END)`
  );
}

export type ReadKind = 'many' | 'first' | 'count';

/**
 * One statement counting the rows of `modelName` that `where` holds for, per value of the
 * scalar field `by`: one row per value found, `value` (plain, as a record would carry it) and `count`.
 */
export function compileCountBy(readModel: ReadModel, modelName: string, by: string, where: Where | undefined): CompiledRead {
  const statement = new Statement(readModel);
  const model = statement.modelOf(modelName);
  const field = model.fields.find((candidate) => candidate.name === by);
  if (!field || (field.kind !== 'scalar' && field.kind !== 'enum') || field.isList) throw new UnsupportedRead(`count by ${model.name}.${by}`);
  const alias = statement.alias();
  const condition = statement.where(model, alias, where);
  const value = statement.scalar(alias, field);
  return {
    sql: `SELECT ${value} AS value, count(*)::int AS count FROM ${quote(model.table)} ${alias}${condition ? ` WHERE ${condition}` : ''} GROUP BY 1`,
    params: statement.params,
    searches: statement.searches,
  };
}

/**
 * One statement for a read of `modelName`: `many` and `first` answer one row per record in a
 * column `j` (the record as a JSON array, which `shape` makes its object), `count` one row with `count`.
 */
export function compileRead(
  readModel: ReadModel,
  modelName: string,
  kind: ReadKind,
  args: Args = {},
): CompiledRead & { backward: boolean; dates: DateSlots; shape?: RowShape } {
  const statement = new Statement(readModel);
  const model = statement.modelOf(modelName);
  const alias = statement.alias();
  const where = statement.where(model, alias, args.where as Where | undefined);
  if (kind === 'count') {
    if (args.select !== undefined || args.cursor !== undefined || args.take !== undefined || args.skip !== undefined) {
      throw new UnsupportedRead('count takes only where');
    }
    const sql = `SELECT count(*)::int AS count FROM ${quote(model.table)} ${alias}${where ? ` WHERE ${where}` : ''}`;
    return { sql, params: statement.params, searches: statement.searches, backward: false, dates: statement.dates };
  }
  const page = statement.page(model, kind === 'first' ? { ...args, take: args.take === undefined ? 1 : Math.sign(args.take as number) || 1 } : args);
  const order = statement.orderBy(model, alias, args.orderBy);
  const terms = statement.withCursorTiebreak(model, alias, order.terms, page.cursor);
  const scan = page.backward ? terms.map(reversed) : terms;
  const conditions = [where, page.cursor ? statement.cursorCondition(model, alias, scan, page.cursor) : ''].filter(Boolean);
  const { sql: row, shape } = statement.row(model, alias, args);
  const limits = [
    page.take !== undefined ? ` LIMIT ${statement.intParam(page.take)}` : '',
    page.skip !== undefined ? ` OFFSET ${statement.intParam(page.skip)}` : '',
  ].join('');
  const sql =
    `SELECT ${row} AS j FROM ${quote(model.table)} ${alias}${order.joins}` +
    `${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}${orderClause(scan)}${limits}`;
  return { sql, params: statement.params, searches: statement.searches, backward: page.backward, dates: statement.dates, shape };
}
