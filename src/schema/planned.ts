// The planned path for reads (issue 45). graphql-js executes a selection generically: for every
// field of every row it builds a resolve info and a path, runs each plugin's wrapper (scope-auth,
// plugin-prisma's loader mapping) and completes the value by its type, about 10,000 times for a
// page of 20 returns, though the page's one statement already brought every row. A query whose
// root fields load their whole selection in that statement (the field extension PLANNED_READ)
// and whose nested fields only read what their parent row carries is planned once per document
// instead: its fields collected, merged and typed once, and per request only the root resolvers
// run as graphql-js would run them, then each nested field's own resolver (the one the schema's
// author wrote, `pothosOriginalResolve`) and its type's serializer, in completers written for the plan.
//
// Nothing decided per request is guessed: a caller missing a scope a field asks for statically,
// a type rule that does not say yes, a value the plan cannot complete (a relation the statement
// did not bring, a null where the schema says never) or any error sends the request
// down the ordinary path, which answers (and fails) exactly as before. The rules themselves are
// the resolvers', run once; the planner holds no copy of any.
import {
  type execute as graphqlExecute,
  defaultFieldResolver,
  getArgumentValues,
  getVariableValues,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  locatedError,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { GraphQLContext } from './context.ts';
import type { ReadPathObserver, ReadPlanner } from './readPlanner.ts';

/**
 * Field extension: the root field's resolver loads every row of its selection, relations
 * included, in its one read (plugin-prisma's plan of the whole selection), so nested fields
 * need nothing but their parent row.
 */
export const PLANNED_READ = 'plannedRead';


type Resolver = (parent: unknown, args: Record<string, unknown>, ctx: unknown, info: GraphQLResolveInfo) => unknown;
type TypeRule = (parent: unknown, ctx: unknown) => unknown;

/** Completes one value, null included, as graphql-js would, or throws Abandon where the plan cannot. */
type Completer = (value: unknown, run: Run) => unknown;

/** How one value is completed: by its type, walked once at planning, and its completer written once for it (compileCompletion). */
type Completion =
  | { kind: 'leaf'; nonNull: boolean; serialize: (value: unknown) => unknown; complete: Completer }
  | { kind: 'list'; nonNull: boolean; of: Completion; complete: Completer }
  | { kind: 'object'; nonNull: boolean; type: GraphQLObjectType; rule: TypeRule | undefined; fields: PlannedField[]; complete: Completer };

/** A Completion before its completer is written. */
type CompletionShape = Completion extends infer C ? (C extends Completion ? Omit<C, 'complete'> : never) : never;

interface PlannedField {
  responseKey: string;
  /** The field's place in its plan (0, 1, ...): where a run keeps its info and arguments, read for every row without a hash lookup. */
  ordinal: number;
  /** `__typename`: the object type's name, no resolver. */
  typename: boolean;
  /** The arguments the document fixes, coerced at planning; unset when one names a variable (then `Run.args` holds them). */
  args: Record<string, unknown> | undefined;
  /** The graphql-js field, kept to coerce arguments that name a variable per request. */
  field: GraphQLField<unknown, unknown> | undefined;
  resolve: Resolver;
  /** The resolver is graphql-js's default one (Pothos's `expose` of the field's own name): the completer reads the property itself. */
  exposed: boolean;
  /** plugin-prisma's test that the parent row carries the relation (a connection's reads the selection through info and context). */
  loaded: ((parent: unknown, info: GraphQLResolveInfo, ctx: unknown) => boolean) | undefined;
  completion: Completion;
  info: GraphQLResolveInfo;
}

interface RootField {
  responseKey: string;
  field: GraphQLField<unknown, unknown>;
  nodes: FieldNode[];
  completion: Completion;
}

interface Plan {
  operation: OperationDefinitionNode;
  name: string;
  roots: RootField[];
  /** Scopes some field of the plan asks for (statically): a caller without one takes the ordinary path. */
  scopes: string[];
  /** Nested fields with an argument naming a variable: their arguments are coerced once per request, not per row. */
  variableArgumentFields: PlannedField[];
  /** How many fields the plan has (their ordinals run from 0). */
  fields: number;
  /**
   * The callers' scope sets (scopeSetKey) for which a type's rule refused a row: the planned run
   * gave up after the root read, and the ordinary path read again. Those callers take the ordinary
   * path straight away from then on, so the double read happens once per document and scope set.
   */
  refusedByTypeRule: Set<string>;
  fragments: Record<string, FragmentDefinitionNode>;
}

/** Why a document is not planned (kept for the debug line). */
interface Refusal {
  name: string;
  reason: string;
}

class NotPlannable extends Error {}

/** A planned run that met what the plan cannot answer: the request goes the ordinary way. */
class Abandon extends Error {}

/** A type's rule did not grant a row to this caller: callers with the same scopes will meet it again. */
class RefusedByTypeRule extends Abandon {}

/** One key per distinct set of scopes, made once per set (the authenticated client's set is reused across its requests). */
const scopeSetKeys = new WeakMap<ReadonlySet<string>, string>();
function scopeSetKey(scopes: ReadonlySet<string> | undefined): string {
  if (!scopes) return '';
  let key = scopeSetKeys.get(scopes);
  if (key === undefined) scopeSetKeys.set(scopes, (key = [...scopes].sort().join(' ')));
  return key;
}

const anonymous = '(anonymous)';

function operationOf(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName == null) return operations.length === 1 ? operations[0] : undefined;
  return operations.find((o) => o.name?.value === operationName);
}

/** graphql-js's CollectFields for an object type, without directives (a document using @skip/@include is not planned). */
function collectFields(
  fragments: Record<string, FragmentDefinitionNode>,
  type: GraphQLObjectType,
  selectionSets: readonly SelectionSetNode[],
): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const visit = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.directives && selection.directives.length > 0) throw new NotPlannable('a directive on a selection');
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const list = fields.get(key);
        if (list) list.push(selection);
        else fields.set(key, [selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (selection.typeCondition && selection.typeCondition.name.value !== type.name) {
          throw new NotPlannable(`a fragment on ${selection.typeCondition.name.value} inside ${type.name}`);
        }
        visit(selection.selectionSet);
      } else {
        const name = selection.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const fragment = fragments[name];
        if (!fragment) throw new NotPlannable(`unknown fragment ${name}`);
        if (fragment.typeCondition.name.value !== type.name) throw new NotPlannable(`the fragment ${name} on another type than ${type.name}`);
        visit(fragment.selectionSet);
      }
    }
  };
  for (const set of selectionSets) visit(set);
  return fields;
}

interface Extensions {
  pothosExposedField?: string;
  pothosOptions?: { authScopes?: unknown; grantScopes?: unknown; skipTypeScopes?: unknown; skipInterfaceScopes?: unknown; unauthorizedResolver?: unknown };
  pothosOriginalResolve?: Resolver;
  pothosPrismaLoaded?: (parent: unknown, info: GraphQLResolveInfo, ctx: unknown) => boolean;
  pothosPrismaFallbackPlan?: unknown;
  [PLANNED_READ]?: boolean;
}

/** The scope a field asks for, when it is the static `{ scope }` the planner can check; anything else refuses the document. */
function staticScope(extensions: Extensions, where: string): string | undefined {
  const options = extensions.pothosOptions ?? {};
  if (options.grantScopes !== undefined || options.skipTypeScopes || options.skipInterfaceScopes || options.unauthorizedResolver) {
    throw new NotPlannable(`${where} changes how scopes apply`);
  }
  const scopes = options.authScopes;
  if (scopes === undefined) return undefined;
  if (typeof scopes === 'object' && scopes !== null && Object.keys(scopes).length === 1 && typeof (scopes as { scope?: unknown }).scope === 'string') {
    return (scopes as { scope: string }).scope;
  }
  throw new NotPlannable(`${where} has scopes other than one { scope }`);
}

class Planner {
  readonly scopes = new Set<string>();
  readonly variableArgumentFields: PlannedField[] = [];
  fields = 0;

  constructor(
    readonly schema: GraphQLSchema,
    readonly operation: OperationDefinitionNode,
    readonly fragments: Record<string, FragmentDefinitionNode>,
  ) {}

  completion(type: GraphQLOutputType, nodes: FieldNode[], nonNull = false): Completion {
    if (isNonNullType(type)) return this.completion(type.ofType, nodes, true);
    if (isListType(type)) return compileCompletion({ kind: 'list', nonNull, of: this.completion(type.ofType, nodes) });
    if (isScalarType(type) || isEnumType(type)) return compileCompletion({ kind: 'leaf', nonNull, serialize: (value) => type.serialize(value) });
    if (!isObjectType(type)) throw new NotPlannable(`the abstract type ${type.name}`);
    const typeOptions = (type.extensions as Extensions).pothosOptions ?? {};
    const rule = typeOptions.authScopes;
    if (rule !== undefined && typeof rule !== 'function') throw new NotPlannable(`${type.name} has scopes other than a rule`);
    const selections = nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
    const fields = [...collectFields(this.fragments, type, selections)].map(([responseKey, fieldNodes]) =>
      this.field(type, responseKey, fieldNodes),
    );
    return compileCompletion({ kind: 'object', nonNull, type, rule: rule as TypeRule | undefined, fields });
  }

  field(parentType: GraphQLObjectType, responseKey: string, nodes: FieldNode[]): PlannedField {
    const name = nodes[0].name.value;
    // The completer writes each response key as an object literal's key, where this one would set the prototype.
    if (responseKey === '__proto__') throw new NotPlannable('the response key __proto__');
    // What a nested resolver may read of its info is what the plan knows, and the request's variables (infoOf); one reading the path fails, and the request falls back.
    const info = { fieldName: name, fieldNodes: nodes, parentType, schema: this.schema, fragments: this.fragments, operation: this.operation } as unknown as GraphQLResolveInfo;
    if (name === '__typename') {
      return {
        responseKey,
        ordinal: this.fields++,
        typename: true,
        args: {},
        field: undefined,
        resolve: () => parentType.name,
        exposed: false,
        loaded: undefined,
        completion: compileCompletion({ kind: 'leaf', nonNull: true, serialize: (v) => v }),
        info,
      };
    }
    if (name.startsWith('__')) throw new NotPlannable(`introspection (${name})`);
    const field = parentType.getFields()[name];
    if (!field) throw new NotPlannable(`${parentType.name}.${name} is unknown`);
    // Arguments the document fixes are the same for every row and request: coerced once here. One
    // naming a variable is coerced once per request (runPlanned), as graphql-js would for every row.
    // The root read planned its relations with the same variables, so what it loaded matches them.
    const takesVariable = nodes.some((node) => node.arguments?.some((argument) => hasVariable(argument.value)));
    const args = takesVariable ? undefined : getArgumentValues(field, nodes[0]);
    const extensions = field.extensions as Extensions;
    const resolve = extensions.pothosOriginalResolve;
    if (!resolve || extensions.pothosPrismaFallbackPlan !== undefined) throw new NotPlannable(`${parentType.name}.${name} has no plain resolver`);
    const scope = staticScope(extensions, `${parentType.name}.${name}`);
    if (scope) this.scopes.add(scope);
    const planned: PlannedField = {
      responseKey,
      ordinal: this.fields++,
      typename: false,
      args,
      field,
      resolve,
      exposed: resolve === defaultFieldResolver && extensions.pothosExposedField === name,
      loaded: extensions.pothosPrismaLoaded,
      completion: this.completion(field.type, nodes),
      info: { ...info, returnType: field.type } as GraphQLResolveInfo,
    };
    if (takesVariable) this.variableArgumentFields.push(planned);
    return planned;
  }
}

function plan(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Plan {
  if (operation.operation !== 'query') throw new NotPlannable(`a ${operation.operation}`);
  if (operation.directives && operation.directives.length > 0) throw new NotPlannable('a directive on the operation');
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  const queryType = schema.getQueryType();
  if (!queryType) throw new NotPlannable('no query type');
  const planner = new Planner(schema, operation, fragments);
  const roots = [...collectFields(fragments, queryType, [operation.selectionSet])].map(([responseKey, nodes]): RootField => {
    const field = queryType.getFields()[nodes[0].name.value];
    if (!field) throw new NotPlannable(`Query.${nodes[0].name.value}`);
    if (!(field.extensions as Extensions)[PLANNED_READ]) throw new NotPlannable(`Query.${field.name} does not load its selection in one read`);
    const scope = staticScope(field.extensions as Extensions, `Query.${field.name}`);
    if (scope) planner.scopes.add(scope);
    // The root field's own wrapped resolver runs (scopes, plugin-prisma's plan); its value is completed by the plan.
    return { responseKey, field, nodes, completion: planner.completion(field.type, nodes) };
  });
  return { operation, name: operation.name?.value ?? anonymous, roots, scopes: [...planner.scopes], variableArgumentFields: planner.variableArgumentFields, fields: planner.fields, refusedByTypeRule: new Set(), fragments };
}

function hasVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(hasVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => hasVariable(field.value));
  return false;
}

/** One planned execution's own state: the caller, the resolvers still settling, each nested field's info and arguments. */
interface Run {
  ctx: unknown;
  pending: Promise<void>[];
  variableValues: Record<string, unknown>;
  /** By field ordinal. */
  infos: (GraphQLResolveInfo | undefined)[];
  /** By field ordinal: the request's arguments of the plan's fields that name a variable, coerced once. */
  args: (Record<string, unknown> | undefined)[];
}

/**
 * A nested field's info for this execution: the plan's, with the execution's coerced variables,
 * one object per field and execution as graphql-js gives. plugin-prisma's connection fields key
 * what they work out once per execution (the names selected, the page query, which may depend on
 * the caller) on `info.variableValues`, so one plan-wide object would hand a request's page query
 * to the next request.
 */
function infoOf(run: Run, field: PlannedField): GraphQLResolveInfo {
  let info = run.infos[field.ordinal];
  if (!info) run.infos[field.ordinal] = info = { ...field.info, variableValues: run.variableValues };
  return info;
}

/**
 * A field whose resolver answered a promise is filled in when it settles: its key is already set,
 * so the object keeps the selection's order, and the promise joins `run.pending`.
 */
function settle(out: Record<string, unknown>, key: string, value: PromiseLike<unknown>, complete: Completer, run: Run): void {
  const settled = Promise.resolve(value).then((v) => {
    out[key] = complete(v, run);
  });
  // Awaited with the others; marked handled so one failing after the run gave up is not an unhandled rejection.
  settled.catch(() => {});
  run.pending.push(settled);
}

/** A function written from `body`, its free names bound to `values`: one per completion, so each call and property read in it sees one shape. */
function writtenFunction(values: Record<string, unknown>, body: string): Completer {
  return new Function(...Object.keys(values), body)(...Object.values(values)) as Completer;
}

const literal = (text: string) => JSON.stringify(text);

/**
 * The completion's completer, written once at planning. A completer made for its selection costs
 * a fraction of one walking the plan generically (issue 45): each of its property reads and calls
 * sees one shape, the object is made whole as a literal in the selection's order, and a field
 * Pothos exposes is read straight off its row. Its text holds only the schema's names and the
 * document's response keys (GraphQL names, `__proto__` refused at planning) as string literals.
 */
function compileCompletion(shape: CompletionShape): Completion {
  const onNull = shape.nonNull ? "throw new Abandon('null where the schema says never');" : 'return null;';
  const start = `if (value === null || value === undefined) { ${onNull} }`;
  switch (shape.kind) {
    case 'leaf':
      return {
        ...shape,
        complete: writtenFunction(
          { Abandon, serialize: shape.serialize },
          `return function completeLeaf(value) {
            ${start}
            const serialized = serialize(value);
            if (serialized === undefined) throw new Abandon('a value its type does not serialize');
            return serialized;
          };`,
        ),
      };
    case 'list':
      return {
        ...shape,
        complete: writtenFunction(
          { Abandon, completeItem: shape.of.complete },
          `return function completeList(value, run) {
            ${start}
            if (!Array.isArray(value)) throw new Abandon('a list that is no array');
            const out = new Array(value.length);
            for (let i = 0; i < value.length; i++) out[i] = completeItem(value[i], run);
            return out;
          };`,
        ),
      };
    case 'object': {
      const { type, fields, rule } = shape;
      const where = (field: PlannedField) => `${type.name}.${field.info.fieldName}`;
      const statements = fields.map((field, i) => {
        const key = `out[${literal(field.responseKey)}]`;
        if (field.typename) return `${key} = ${literal(type.name)};`;
        const info = `infoOf(run, fields[${i}])`;
        const args = field.args ? `fields[${i}].args` : `run.args[${field.ordinal}]`;
        const call = `resolvers[${i}](value, ${args}, ctx, ${info})`;
        const leaf = field.completion.kind === 'leaf';
        return `
          ${field.loaded ? `if (!loaded[${i}](value, ${info}, ctx)) throw new Abandon(${literal(`${where(field)} was not loaded`)});` : ''}
          ${field.exposed ? `r = value[${literal(field.info.fieldName)}]; if (typeof r === 'function') r = ${call};` : `r = ${call};`}
          if (r === null || r === undefined) {
            ${field.completion.nonNull ? "throw new Abandon('null where the schema says never');" : `${key} = null;`}
          } else if ((typeof r === 'object' || typeof r === 'function') && (r instanceof Error || typeof r.then === 'function')) {
            if (r instanceof Error) throw new Abandon(${literal(`${where(field)} answered an error`)});
            settle(out, ${literal(field.responseKey)}, r, completers[${i}], run);
          } else {
            ${
              leaf
                ? `s = serializers[${i}](r); if (s === undefined) throw new Abandon('a value its type does not serialize'); ${key} = s;`
                : `${key} = completers[${i}](r, run);`
            }
          }`;
      });
      return {
        ...shape,
        complete: writtenFunction(
          {
            Abandon,
            RefusedByTypeRule,
            infoOf,
            settle,
            rule,
            fields,
            resolvers: fields.map((field) => field.resolve),
            loaded: fields.map((field) => field.loaded),
            completers: fields.map((field) => field.completion.complete),
            serializers: fields.map((field) => (field.completion.kind === 'leaf' ? field.completion.serialize : undefined)),
          },
          `return function ${/^[A-Za-z_][A-Za-z0-9_]*$/.test(type.name) ? `complete${type.name}` : 'completeObject'}(value, run) {
            ${start}
            // A resolver's answer that is no object would be read as graphql-js's default resolver reads it; the ordinary path does that.
            if (typeof value !== 'object' && typeof value !== 'function') throw new Abandon('an object value that is no object');
            const ctx = run.ctx;
            ${rule ? `if (rule(value, ctx) !== true) throw new RefusedByTypeRule(${literal(`${type.name}'s rule did not grant it`)});` : ''}
            const out = { ${fields.map((field) => `${literal(field.responseKey)}: null`).join(', ')} };
            let r, s;
            ${statements.join('\n')}
            return out;
          };`,
        ),
      };
    }
  }
}

type Execute = typeof graphqlExecute;

export function createReadPlanner(observe: ReadPathObserver = () => {}): ReadPlanner {
  const plans = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, Plan | Refusal>>>();

  const planOf = (args: ExecutionArgs): Plan | Refusal => {
    let bySchema = plans.get(args.schema);
    if (!bySchema) plans.set(args.schema, (bySchema = new WeakMap()));
    let byName = bySchema.get(args.document);
    if (!byName) bySchema.set(args.document, (byName = new Map()));
    const key = args.operationName ?? '';
    let found = byName.get(key);
    if (!found) {
      const operation = operationOf(args.document, args.operationName);
      const name = operation?.name?.value ?? args.operationName ?? anonymous;
      try {
        found = operation ? plan(args.schema, args.document, operation) : { name, reason: 'no single operation to run' };
      } catch (error) {
        // NotPlannable, or what graphql-js refuses while coercing the document's fixed arguments: the ordinary path answers it.
        found = { name, reason: (error as Error).message };
      }
      byName.set(key, found);
    }
    return found;
  };

  const fallBack = (args: ExecutionArgs, fallback: Execute, name: string, reason: string) => {
    observe('fallback', name);
    (args.contextValue as GraphQLContext | undefined)?.logger?.debug('operation took the ordinary path', { operation: name, reason });
    return fallback(args);
  };

  const runPlanned = async (args: ExecutionArgs, planned: Plan, ctx: GraphQLContext): Promise<ExecutionResult | undefined> => {
    const coerced = getVariableValues(args.schema, planned.operation.variableDefinitions ?? [], (args.variableValues ?? {}) as Record<string, unknown>);
    if (coerced.errors) return undefined;
    const variableValues = coerced.coerced;
    const queryType = args.schema.getQueryType()!;
    const data: Record<string, unknown> = {};
    // Coerced before the root read: one the schema refuses sends the request down the ordinary path, which answers with its error.
    const variableArgs = new Array<Record<string, unknown> | undefined>(planned.fields);
    for (const field of planned.variableArgumentFields) variableArgs[field.ordinal] = getArgumentValues(field.field!, field.info.fieldNodes[0], variableValues);
    const run: Run = { ctx, pending: [], variableValues, infos: new Array(planned.fields), args: variableArgs };
    for (const root of planned.roots) {
      const info = {
        fieldName: root.field.name,
        fieldNodes: root.nodes,
        returnType: root.field.type,
        parentType: queryType,
        path: { prev: undefined, key: root.responseKey, typename: queryType.name },
        schema: args.schema,
        fragments: planned.fragments,
        rootValue: args.rootValue,
        operation: planned.operation,
        variableValues,
      } as GraphQLResolveInfo;
      let value: unknown;
      try {
        const fieldArgs = getArgumentValues(root.field, root.nodes[0], variableValues);
        value = await root.field.resolve!(args.rootValue, fieldArgs, ctx, info);
      } catch (error) {
        // The root's own failure (a bad cursor, a database gone away) is answered as graphql-js answers it,
        // not retried down the ordinary path: that would read again, and could hide the failure.
        if (planned.roots.length > 1) throw error;
        const located = locatedError(error, root.nodes, [root.responseKey]);
        return { errors: [located], data: isNonNullType(root.field.type) ? null : { [root.responseKey]: null } };
      }
      data[root.responseKey] = root.completion.complete(value, run);
    }
    while (run.pending.length > 0) await Promise.all(run.pending.splice(0));
    return { data };
  };

  return {
    execute(args, fallback) {
      const found = planOf(args);
      if (!('roots' in found)) return fallBack(args, fallback, found.name, found.reason);
      const ctx = args.contextValue as GraphQLContext;
      const missing = found.scopes.find((scope) => !ctx.auth?.scopes.has(scope as never));
      if (missing) return fallBack(args, fallback, found.name, `the caller lacks ${missing}`);
      const scopes = scopeSetKey(ctx.auth?.scopes);
      if (found.refusedByTypeRule.has(scopes)) return fallBack(args, fallback, found.name, 'a type rule refused callers with these scopes before');
      return runPlanned(args, found, ctx).then(
        (result) => {
          if (!result) return fallBack(args, fallback, found.name, 'variables the schema refuses');
          observe('planned', found.name);
          ctx.logger?.debug('operation took the planned path', { operation: found.name });
          return result;
        },
        (error: unknown) => {
          if (error instanceof RefusedByTypeRule) found.refusedByTypeRule.add(scopes);
          return fallBack(args, fallback, found.name, error instanceof Abandon ? error.message : `an error: ${(error as Error)?.message ?? error}`);
        },
      );
    },
  };
}
