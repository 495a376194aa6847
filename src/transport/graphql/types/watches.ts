import { builder } from '../builder.ts';
import { textCost, type ListSize } from '../cost.ts';
import {
  createWatchOperation,
  deleteWatchOperation,
  listWatchesOperation,
  updateWatchOperation,
} from '../../operations/watches.ts';
import { changes, checkInput, given } from '../../../domain/validation.ts';
import type { Watch } from '../../../generated/prisma/client.ts';
import { RiskLevelEnum } from './vocabularies.ts';
import type { Page } from '../../../domain/overrides/reads.ts';
import {
  WATCH_LIMITS,
  createWatchSchema,
  deleteWatchSchema,
  listWatchesSchema,
  UPDATE_WATCH_CLEARABLE,
  updateWatchSchema,
} from '../../../domain/watches/schemas.ts';
import { WATCH_TARGET_KIND_MEANINGS, WATCHABLE_SUBJECT_KINDS } from '../../../domain/watches/target.ts';
import { enumValues } from '../enum-values.ts';

export const WatchTargetKindEnum = builder.enumType('WatchTargetKind', {
  description: 'What a watch names.',
  values: enumValues(WATCH_TARGET_KIND_MEANINGS),
});

const WatchAuthorRef = builder.objectRef<{ kind: string; id: number; label: string }>('WatchAuthor').implement({
  description: 'Who created a watch: an API key or a control-plane account.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'api_key or account.' }),
    id: t.exposeInt('id', { description: "The key's or account's id." }),
    label: t.exposeString('label', { description: "The key's name and prefix, or the account's e-mail, at the time." }),
  }),
});

export const WatchRef = builder.objectRef<Watch>('Watch').implement({
  description:
    "A workspace's watch: the events it causes are delivered to the workspace's webhook endpoints (docs/watches.md).",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Watch id (increasing).' }),
    targetKind: t.field({
      type: WatchTargetKindEnum,
      description: 'What the watch names.',
      resolve: (w) => w.targetKind as never,
    }),
    target: t.exposeString('target', {
      description: 'The IP, block, AS (AS<n>) or subject (<kind>:<key>), canonical.',
    }),
    scoreThreshold: t.exposeInt('scoreThreshold', {
      nullable: true,
      description: 'watch.score_crossed fires when a publication moves the score across it; null: level changes only.',
    }),
    note: t.exposeString('note', {
      description: 'Internal note, carried in every event.',
      extensions: { cost: textCost(WATCH_LIMITS.note) },
    }),
    author: t.field({
      type: WatchAuthorRef,
      description: 'Who created it.',
      resolve: (w) => ({ kind: w.authorKind, id: w.authorId, label: w.authorLabel }),
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (w) => w.createdAt }),
    lastScore: t.exposeInt('lastScore', {
      nullable: true,
      description: 'The score the last publication compared gave; null before the first (and for subject watches).',
    }),
    lastLevel: t.field({
      type: RiskLevelEnum,
      nullable: true,
      description: 'Its level.',
      resolve: (w) => w.lastLevel as never,
    }),
    lastPublicationVersion: t.exposeInt('lastPublicationVersion', {
      nullable: true,
      description: 'The publication lastScore is from.',
    }),
    lastSpiking: t.exposeBoolean('lastSpiking', {
      description: 'Whether the community signal was spiking at the last check.',
    }),
  }),
});

export const WatchPageRef = builder.objectRef<Page<Watch>>('WatchPage').implement({
  description: 'One page of watches, oldest first.',
  fields: (t) => ({
    nodes: t.expose('items', {
      type: [WatchRef],
      description: 'The watches of the page.',
      extensions: { list: { max: WATCH_LIMITS.listPage } satisfies ListSize },
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Pass as after: for the next page; null on the last page.',
    }),
  }),
});

const WatchSubjectInput = builder.inputType('WatchSubjectInput', {
  description: 'A report subject to watch (not an IP, block or AS: those are watched with target).',
  fields: (t) => ({
    kind: t.string({ required: true, description: `One of: ${WATCHABLE_SUBJECT_KINDS.join(', ')}.` }),
    key: t.string({ required: true, description: "The subject's key, normalised as reports normalise it." }),
  }),
});

export const CreateWatchInput = builder.inputType('CreateWatchInput', {
  description: 'A new watch: exactly one of target and subject. Bounds are in docs/watches.md.',
  fields: (t) => ({
    target: t.string({ description: 'An IP, a CIDR block or an AS number (AS64500).' }),
    subject: t.field({ type: WatchSubjectInput, description: 'Any other report subject.' }),
    scoreThreshold: t.int({
      description: 'A score from 1 to 100 (ip, cidr and asn watches); absent: level changes only.',
    }),
    note: t.string({ description: `Internal note (at most ${WATCH_LIMITS.note} characters).` }),
  }),
});

export const UpdateWatchInput = builder.inputType('UpdateWatchInput', {
  description: "A watch's threshold or note; its target never changes (that is another watch).",
  fields: (t) => ({
    id: t.int({ required: true, description: "The watch's id." }),
    scoreThreshold: t.int({ description: 'New threshold, 1 to 100; null removes it; absent: unchanged.' }),
    note: t.string({
      description: `New internal note (at most ${WATCH_LIMITS.note} characters); absent or null: unchanged.`,
    }),
  }),
});

builder.mutationField('createWatch', (t) =>
  t.field({
    type: WatchRef,
    description:
      'Watch an IP, block, AS or report subject (free, never counted). One watch per target; at most 10,000 per workspace.',
    args: { input: t.arg({ type: CreateWatchInput, required: true, description: 'The watch.' }) },
    resolve: (_root, args, ctx) => createWatchOperation.resolve(checkInput(createWatchSchema, given(args.input)), ctx),
  }),
);

builder.mutationField('updateWatch', (t) =>
  t.field({
    type: WatchRef,
    description: "Change a watch's threshold or note (free).",
    args: { input: t.arg({ type: UpdateWatchInput, required: true, description: 'The watch and what changes.' }) },
    resolve: (_root, args, ctx) =>
      updateWatchOperation.resolve(checkInput(updateWatchSchema, changes(args.input, UPDATE_WATCH_CLEARABLE)), ctx),
  }),
);

builder.mutationField('deleteWatch', (t) =>
  t.field({
    type: WatchRef,
    description: 'Delete a watch (free); answers the watch as it was. Its events already written are still delivered.',
    args: { id: t.arg.int({ required: true, description: "The watch's id." }) },
    resolve: (_root, args, ctx) => deleteWatchOperation.resolve(checkInput(deleteWatchSchema, { id: args.id }), ctx),
  }),
);

builder.queryField('watches', (t) =>
  t.field({
    type: WatchPageRef,
    description: "The workspace's watches, oldest first (free).",
    args: {
      first: t.arg.int({
        description: `Watches per page, 1-${WATCH_LIMITS.listPage} (default ${WATCH_LIMITS.defaultListPage}).`,
      }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_root, args, ctx) =>
      listWatchesOperation.resolve(
        checkInput(listWatchesSchema, given({ limit: args.first, cursor: args.after })),
        ctx,
      ),
  }),
);
