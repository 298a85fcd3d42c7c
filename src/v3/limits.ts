// What one request to /v3/graphql may ask for. Aliases, depth, tokens and directives are
// GraphQL Armor's envelop plugins; the cost rule is ours because Armor's cost model
// (fixed object/scalar costs times a depth factor) cannot express what a connection costs:
// its page size times what each of its nodes selects. The documents the REST, compat and
// web doors run are written in this repository and validated at start-up
// (schema/execute.ts), so they are trusted and never pass through these limits.
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import {
  GraphQLError,
  getNamedType,
  isObjectType,
  isInterfaceType,
  Kind,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  visit,
  BREAK,
} from 'graphql';
import { countSearchTerms } from '../domain/search/syntax.ts';
import { badInput, badText, type InputIssue } from '../http/inputText.ts';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLArmorRejectCallback } from '@escape.tech/graphql-armor-types';
import type { GraphQLLimits } from '../config.ts';
import { DEFAULT_PAGE_SIZE } from '../schema/connectionArgs.ts';
import { MAX_PAGE_SIZE } from '../schema/context.ts';
import type { LimitCode } from '../schema/errors.ts';

function limitError(code: LimitCode, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/** Armor reports "Syntax Error: ..." without a code; this reports the same refusal with ours. */
function rejectWith(code: LimitCode): { onReject: GraphQLArmorRejectCallback[]; propagateOnRejection: false } {
  return {
    propagateOnRejection: false,
    onReject: [
      (ctx, error) => {
        const message = error.message.replace(/^Syntax Error: /, '');
        // The token limit runs in the parser, which has no validation context: throwing stops the parse.
        if (!ctx) throw limitError(code, message);
        ctx.reportError(limitError(code, message));
      },
    ],
  };
}

type Variables = Record<string, unknown> | undefined;

function pageSizeOf(field: FieldNode, variables: Variables): number {
  for (const name of ['first', 'last']) {
    const arg = field.arguments?.find((a) => a.name.value === name);
    if (!arg) continue;
    const value = arg.value.kind === Kind.VARIABLE ? variables?.[arg.value.name.value] : valueFromASTUntyped(arg.value);
    // A size no connection accepts (negative, above the v3 maximum, not an Int) is refused
    // by argument checks with its own message; counted here at most as the maximum.
    if (typeof value === 'number' && Number.isInteger(value)) return Math.min(Math.max(0, value), MAX_PAGE_SIZE.v3);
  }
  return DEFAULT_PAGE_SIZE;
}

/**
 * What one search term costs, in objects: each is an index lookup over the store's documents
 * (or a check of rows they found), the work of a few hundred rows, whatever page it fills.
 */
export const SEARCH_TERM_COST = 500;

/**
 * The terms of the searches a field is given: its `query:` argument, or a `query` member of an
 * input object argument (a bulk action's `matching`), literal or through variables.
 */
function searchTermsOf(field: FieldNode, variables: Variables): number {
  let terms = 0;
  const visitValue = (value: unknown, name: string) => {
    if (name === 'query' && typeof value === 'string') terms += countSearchTerms(value);
    else if (Array.isArray(value)) for (const item of value) visitValue(item, '');
    else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) visitValue(item, key);
  };
  for (const arg of field.arguments ?? []) visitValue(valueFromASTUntyped(arg.value, variables), arg.name.value);
  return terms;
}

function isConnection(type: GraphQLNamedType): boolean {
  return isObjectType(type) && type.name.endsWith('Connection') && 'pageInfo' in type.getFields();
}

interface CostScope {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Variables;
}

interface Cost {
  objects: number;
  searchTerms: number;
}

const costOf = (cost: Cost) => cost.objects + cost.searchTerms * SEARCH_TERM_COST;

/**
 * Cost of a selection on `parent`: each object-typed field costs 1 plus its own selection;
 * a connection costs its page size times the selection of one edge/node; each search term a
 * field is given, SEARCH_TERM_COST (once per time the field runs). Fragments are expanded; a
 * fragment cycle is a validation error elsewhere and is cut here.
 */
function selectionCost(selection: SelectionSetNode | undefined, parent: GraphQLNamedType, scope: CostScope, seen: ReadonlySet<string>): Cost {
  const total: Cost = { objects: 0, searchTerms: 0 };
  if (!selection) return total;
  const add = (cost: Cost, times = 1) => {
    total.objects += cost.objects * times;
    total.searchTerms += cost.searchTerms * times;
  };
  for (const node of selection.selections) {
    if (node.kind === Kind.FRAGMENT_SPREAD) {
      const name = node.name.value;
      const fragment = scope.fragments.get(name);
      if (!fragment || seen.has(name)) continue;
      const on = scope.schema.getType(fragment.typeCondition.name.value) ?? parent;
      add(selectionCost(fragment.selectionSet, on, scope, new Set([...seen, name])));
      continue;
    }
    if (node.kind === Kind.INLINE_FRAGMENT) {
      const on = node.typeCondition ? (scope.schema.getType(node.typeCondition.name.value) ?? parent) : parent;
      add(selectionCost(node.selectionSet, on, scope, seen));
      continue;
    }
    if (!(isObjectType(parent) || isInterfaceType(parent))) continue;
    const field = parent.getFields()[node.name.value];
    if (!field) continue;
    const named = getNamedType(field.type);
    if (!(isObjectType(named) || isInterfaceType(named))) continue;
    const children = selectionCost(node.selectionSet, named, scope, seen);
    // A connection's edges and nodes lists are its page: one element is counted here and
    // multiplied by the page size at the connection field. Other lists (options,
    // attributes) are short, fixed by the data model, and count as one element too.
    add({ objects: 1, searchTerms: searchTermsOf(node, scope.variables) });
    add(children, isConnection(named) ? pageSizeOf(node, scope.variables) : 1);
  }
  return total;
}

/** How many objects the operation of `document` that runs may return, at most, and how many search terms it runs. */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Variables): Cost {
  const fragments = new Map<string, FragmentDefinitionNode>();
  const operations: OperationDefinitionNode[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    if (definition.kind === Kind.OPERATION_DEFINITION) operations.push(definition);
  }
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  const none: Cost = { objects: 0, searchTerms: 0 };
  if (!operation) return none;
  const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  return root ? selectionCost(operation.selectionSet, root, { schema, fragments, variables }, new Set()) : none;
}

/** The envelop plugins of /v3/graphql that enforce `limits`. */
/** badLiteral's answer for each document: yoga hands the same parsed document to every request that sends its text. */
const literalIssues = new WeakMap<DocumentNode, InputIssue | null>();

/** The first string literal of the document that the input check refuses, named by the argument or input field it is given to. */
function badLiteral(document: DocumentNode): InputIssue | undefined {
  const known = literalIssues.get(document);
  if (known !== undefined) return known ?? undefined;
  const issue = findBadLiteral(document);
  literalIssues.set(document, issue ?? null);
  return issue;
}

function findBadLiteral(document: DocumentNode): InputIssue | undefined {
  let issue: InputIssue | undefined;
  let member = '';
  visit(document, {
    Argument: { enter: (node) => void (member = node.name.value) },
    ObjectField: { enter: (node) => void (member = node.name.value) },
    StringValue(node) {
      const message = badText(node.value);
      if (!message) return undefined;
      issue = { path: member, message };
      return BREAK;
    },
  });
  return issue;
}

/** U+0000 or a lone surrogate in a variable or a string literal (inputText.ts) is refused before anything runs. */
const inputTextPlugin: Plugin = {
  onExecute({ args, setResultAndStopExecution }) {
    const issue = badInput(args.variableValues ?? undefined) ?? badLiteral(args.document);
    if (!issue) return;
    const message = `${issue.path ? `${issue.path}: ` : ''}${issue.message}`;
    setResultAndStopExecution({ errors: [new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', issues: [issue] } })] });
  },
};

export function graphqlLimitPlugins(limits: GraphQLLimits): Plugin[] {
  // Page sizes may come from variables, and yoga caches validation per document, so the
  // cost is counted when the operation is about to run, with its variables.
  const cost: Plugin = {
    onExecute({ args, setResultAndStopExecution }) {
      const variables = (args.variableValues ?? undefined) as Variables;
      const cost = operationCost(args.schema, args.document, args.operationName, variables);
      const total = costOf(cost);
      if (total > limits.maxCost) {
        const searches = cost.searchTerms > 0 ? ` and runs ${cost.searchTerms} search terms (${SEARCH_TERM_COST} each): ${total}` : '';
        const advice = cost.searchTerms > 0 ? 'fewer search terms or aliases of a search, smaller pages (first/last)' : 'smaller pages (first/last)';
        setResultAndStopExecution({
          errors: [
            limitError(
              'QUERY_TOO_COSTLY',
              `the query may return ${cost.objects} objects${searches}, above the limit of ${limits.maxCost}; ask for ${advice} or fewer nested connections`,
            ),
          ],
        });
      }
    },
  };
  return [
    maxTokensPlugin({ n: limits.maxTokens, ...rejectWith('TOO_MANY_TOKENS') }) as Plugin,
    maxAliasesPlugin({ n: limits.maxAliases, ...rejectWith('TOO_MANY_ALIASES') }) as Plugin,
    maxDepthPlugin({ n: limits.maxDepth, ...rejectWith('QUERY_TOO_DEEP') }) as Plugin,
    maxDirectivesPlugin({ n: limits.maxDirectives, ...rejectWith('TOO_MANY_DIRECTIVES') }) as Plugin,
    cost,
    inputTextPlugin,
  ];
}
