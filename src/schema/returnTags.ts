// The store's return tags: listed, created or renamed, and deleted.
import { deleteReturnTag, PILL_THEMES, upsertReturnTag } from '../domain/returnTags.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import type { MutationFieldBuilder } from './node.ts';

export const ReturnTag = builder.prismaObject('ReturnTag', {
  description: 'A return tag the store defines; returns name it in `tags`',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false, description: 'The tag, 1 to 100 characters and unique in the store; Return.tags and returnTagsSet name it' }),
    pillTheme: t.exposeString('pillTheme', { nullable: false, description: 'One of the reference pill themes (NORMAL, PRIMARY, SUCCESS ...)' }),
    source: t.exposeString('source', { nullable: false, description: 'merchant: made through the API' }),
    numericId: t.exposeInt('numericId', {
      nullable: false,
      description: 'Numeric id, unique across the service; return_tag.updated events name the tag as `<storeId>:<numericId>`',
    }),
  }),
});

builder.queryFields((t) => ({
  returnTags: t.prismaField({
    type: ['ReturnTag'],
    nullable: false,
    description: 'Every return tag the store defines, sorted by name. Needs returns_read.',
    authScopes: { scope: 'returns_read' },
    resolve: (query, _root, _args, ctx) => ctx.reads.returnTag.findMany({ ...query, where: { storeId: storeIdOf(ctx) }, orderBy: { name: 'asc' } }),
  }),
}));

const TAG_NAME_RULE = '1 to 100 characters';

/** returnTagUpsert, and upsertReturnTag: its deprecated old name (`deprecationReason`). */
function returnTagUpsertField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.prismaField({
    type: 'ReturnTag',
    nullable: false,
    description:
      "Creates the store's return tag `name`, or changes its pill theme; with a newName, renames it and rewrites every return of the " +
      'store naming it. Records return_tag.updated, in one transaction with the change. Needs returns_write. Errors: BAD_USER_INPUT for a ' +
      'name or newName that is blank or over 100 characters, or an unknown pillTheme; NOT_FOUND when renaming a tag the store does not ' +
      'have; CONFLICT when newName is another tag already.',
    deprecationReason,
    authScopes: { scope: 'returns_write' },
    args: {
      name: t.arg.string({ required: true, description: `The tag, ${TAG_NAME_RULE}; created when the store does not have it (unless renaming)` }),
      pillTheme: t.arg.string({ required: true, description: `How the tag is shown, one of: ${PILL_THEMES.join(', ')}` }),
      newName: t.arg.string({ description: `Renames the tag (and every return naming it) when given and different from name; ${TAG_NAME_RULE}` }),
    },
    resolve: async (query, _root, args, ctx) => {
      const tag = await upsertReturnTag(ctx.prisma, storeIdOf(ctx), args);
      return ctx.reads.returnTag.findUniqueOrThrow({ ...query, where: { storeId_name: { storeId: tag.storeId, name: tag.name } } });
    },
  });
}

/** returnTagDelete, and deleteReturnTag: its deprecated old name (`deprecationReason`). */
function returnTagDeleteField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.boolean({
    nullable: false,
    description:
      "Deletes the store's return tag and strips it from every return naming it; records return_tag.updated, in one transaction; " +
      'answers true. Needs returns_write. Errors: NOT_FOUND for a tag the store does not have; BAD_USER_INPUT for a name that is blank ' +
      'or over 100 characters.',
    deprecationReason,
    authScopes: { scope: 'returns_write' },
    args: { name: t.arg.string({ required: true, description: 'The tag to delete' }) },
    resolve: async (_root, args, ctx) => {
      await deleteReturnTag(ctx.prisma, storeIdOf(ctx), args.name);
      return true;
    },
  });
}

builder.mutationFields((t) => ({
  returnTagUpsert: returnTagUpsertField(t),
  upsertReturnTag: returnTagUpsertField(t, 'Use returnTagUpsert'),
  returnTagDelete: returnTagDeleteField(t),
  deleteReturnTag: returnTagDeleteField(t, 'Use returnTagDelete'),
}));
