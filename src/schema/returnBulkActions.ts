// Bulk actions on returns: returnsBulkAction acts on many returns through the operations that
// act on one (domain/returnBulkActions.ts), and returnBulkAction reads how far it got.
import { BULK_ACTIONS, findReturnBulkAction, MAX_BULK_RETURNS, startReturnBulkAction, type BulkAction, type ReturnBulkActionState } from '../domain/returnBulkActions.ts';
import { searchHelp } from '../domain/search/kinds.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { ReturnStatus } from './returns.ts';

const ACTION_DESCRIPTIONS: Record<BulkAction, string> = {
  flag: 'returnFlag on each return',
  close: "returnReject on each return (the compatibility interface's close)",
  process: 'returnProcess on each return',
  tag: 'Adds the tag named by `argument` to each return (a return that has it keeps it)',
  note: 'returnNoteAdd on each return, with `argument` as the note',
};

const ReturnBulkActionKind = builder.enumType('ReturnBulkActionKind', {
  description: 'What returnsBulkAction does to each return',
  values: Object.fromEntries(BULK_ACTIONS.map((action) => [action.toUpperCase(), { value: action, description: ACTION_DESCRIPTIONS[action] }])) as Record<
    Uppercase<BulkAction>,
    { value: BulkAction; description: string }
  >,
});

const ReturnBulkActionState = builder.enumType('ReturnBulkActionState', {
  description: 'How far a bulk action on returns got',
  values: {
    RUNNING: { value: 'running', description: 'Returns are being acted on; `results` grows as each is done' },
    DONE: { value: 'done', description: 'Every return named was acted on (or refused)' },
    STALLED: { value: 'stalled', description: 'Nothing acted on it for a minute: the service instance running it stopped. The returns not in `results` are not acted on yet; an instance resumes it (RUNNING again) once its claim lapses' },
  } as const,
});

const ReturnBulkActionResult = builder.objectRef<ReturnBulkActionState['results'][number]>('ReturnBulkActionResult').implement({
  description: 'What became of one return in a bulk action',
  fields: (t) => ({
    returnId: t.exposeID('id', { nullable: false, description: 'svc_id of the return' }),
    number: t.exposeInt('number', { nullable: false, description: "The return's number" }),
    refusal: t.string({
      nullable: true,
      description: "Why the operation refused the return, naming it by number (as acting on it alone would have said); null when it was done",
      resolve: (result) => result.refused ?? null,
    }),
  }),
});

const ReturnBulkAction = builder.objectRef<ReturnBulkActionState>('ReturnBulkAction').implement({
  description: 'One bulk action on returns, under the key it was started with',
  fields: (t) => ({
    key: t.exposeString('key', { nullable: false, description: 'The key it was started with' }),
    action: t.field({ type: ReturnBulkActionKind, nullable: false, description: 'What it does to each return', resolve: (state) => state.action }),
    argument: t.exposeString('argument', { nullable: true, description: 'The tag added or the note written; null for the other actions' }),
    state: t.field({ type: ReturnBulkActionState, nullable: false, description: 'How far it got', resolve: (state) => state.state }),
    total: t.exposeInt('total', { nullable: false, description: 'How many returns it names' }),
    doneCount: t.int({ nullable: false, description: 'Returns acted on so far', resolve: (state) => state.results.filter((result) => !result.refused).length }),
    refusedCount: t.int({ nullable: false, description: 'Returns the operation refused so far', resolve: (state) => state.results.filter((result) => result.refused).length }),
    results: t.field({
      type: [ReturnBulkActionResult],
      nullable: false,
      args: { refusedOnly: t.arg.boolean({ defaultValue: false, description: 'Only the refused returns' }) },
      description: 'What became of each return acted on so far, in the order they were acted on (by number)',
      resolve: (state, args) => (args.refusedOnly ? state.results.filter((result) => result.refused) : state.results),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false, description: 'When it was started' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false, description: 'When it last acted on a return' }),
  }),
});

const ReturnBulkMatchingInput = builder.inputType('ReturnBulkMatchingInput', {
  description: 'Every return the returns list gives for these filters',
  fields: (t) => ({
    query: t.string({ description: searchHelp('returns') }),
    status: t.field({ type: [ReturnStatus], description: 'Only returns with one of these statuses; every status when omitted or empty' }),
  }),
});

builder.mutationField('returnsBulkAction', (t) =>
  t.field({
    type: ReturnBulkAction,
    nullable: false,
    description:
      `Does one thing to many returns: each return in its own transaction through the mutation that acts on one, so a return the ` +
      `operation refuses (its status does not allow it) is listed with the refusal and the others go ahead. At most ` +
      `${MAX_BULK_RETURNS} returns, named by ids or by matching (exactly one). The action is recorded and its returns are acted on in ` +
      `the background by whichever service instance claims it (resumed by another if that one stops, no return acted on twice): the ` +
      `answer comes when all are done or after about 2 s, whichever is first, and at once, RUNNING, for a request with an ` +
      `Idempotency-Key (the action is recorded with its stored answer, and runs after); returnBulkAction(key) follows it. The key makes it safe to send ` +
      `twice: the same key again acts on nothing and answers the action it started. Needs returns_write. Errors: BAD_USER_INPUT when ` +
      `more than ${MAX_BULK_RETURNS} returns are named or match, none do, an id is not a return of the store, both or neither of ids ` +
      `and matching are given, or the tag or note is missing or invalid.`,
    authScopes: { scope: 'returns_write' },
    args: {
      key: t.arg.string({ required: true, description: 'The caller\'s key for this action, 1 to 100 characters, unique per store (a random value)' }),
      action: t.arg({ type: ReturnBulkActionKind, required: true, description: 'What to do to each return' }),
      ids: t.arg.idList({ description: `The returns (svc_ids), at most ${MAX_BULK_RETURNS}` }),
      matching: t.arg({ type: ReturnBulkMatchingInput, description: `Every return these filters match, when they match at most ${MAX_BULK_RETURNS}` }),
      argument: t.arg.string({ description: 'TAG: the name of a tag the store defines; NOTE: the note, 1 to 255 characters' }),
    },
    resolve: (_root, args, ctx) =>
      startReturnBulkAction(ctx.prisma, ctx.reads, storeIdOf(ctx), {
        key: args.key,
        action: args.action,
        returnIds: args.ids?.map(String) ?? null,
        matching: args.matching ? { query: args.matching.query, statuses: args.matching.status } : null,
        argument: args.argument,
      }),
  }),
);

builder.queryField('returnBulkAction', (t) =>
  t.field({
    type: ReturnBulkAction,
    nullable: true,
    description: 'The bulk action started with this key, as far as it got; null when none was. Needs returns_read.',
    authScopes: { scope: 'returns_read' },
    args: { key: t.arg.string({ required: true, description: 'The key returnsBulkAction was given' }) },
    resolve: (_root, args, ctx) => findReturnBulkAction(ctx.prisma, storeIdOf(ctx), args.key),
  }),
);
