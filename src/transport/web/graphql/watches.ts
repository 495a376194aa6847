import { builder } from './builder.ts';
import type { Watch } from '../../../generated/prisma/client.ts';
import type { Page } from '../../../domain/overrides/reads.ts';
import { WATCH_LIMITS } from '../../../domain/watches/schemas.ts';
import { WATCH_TARGET_KIND_MEANINGS, WATCHABLE_SUBJECT_KINDS } from '../../../domain/watches/target.ts';
import { RISK_LEVELS } from '../../../domain/scoring/levels.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import { createWatchFor, deleteWatchFor, listWatchesFor, updateWatchFor } from '../watch-actions.ts';

/**
 * Watches on /workspace/graphql: the fields of GraphQL for API keys (same names, arguments and errors), run through
 * watch-actions.ts with the signed-in account as the author. The types are declared again only because this schema
 * has a builder of its own; their values and meanings come from the domain's tables.
 */

const TargetKindEnum = builder.enumType('WatchTargetKind', { description: 'What a watch names.', values: enumValues(WATCH_TARGET_KIND_MEANINGS) });
const LevelEnum = builder.enumType('WatchRiskLevel', {
  description: 'A risk level, as the score answers it.', values: enumValues(RISK_LEVELS.map((l) => ({ code: l.level, meaning: `Score ${l.min}-${l.max}.` }))),
});

const AuthorRef = builder.objectRef<{ kind: string; id: number; label: string }>('WatchAuthor').implement({
  description: 'Who created a watch: an API key or a control-plane account.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'api_key or account.' }),
    id: t.exposeInt('id', { description: 'The key\'s or account\'s id.' }),
    label: t.exposeString('label', { description: 'The key\'s name and prefix, or the account\'s e-mail, at the time.' }),
  }),
});

const WatchRef = builder.objectRef<Watch>('Watch').implement({
  description: 'A workspace\'s watch: the events it causes are delivered to the workspace\'s webhook endpoints.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Watch id (increasing).' }),
    targetKind: t.field({ type: TargetKindEnum, description: 'What the watch names.', resolve: (w) => w.targetKind as never }),
    target: t.exposeString('target', { description: 'The IP, block, AS (AS<n>) or subject (<kind>:<key>), canonical.' }),
    scoreThreshold: t.exposeInt('scoreThreshold', { nullable: true, description: 'watch.score_crossed fires when a publication moves the score across it; null: level changes only.' }),
    note: t.exposeString('note', { description: 'Internal note, carried in every event.' }),
    author: t.field({ type: AuthorRef, description: 'Who created it.', resolve: (w) => ({ kind: w.authorKind, id: w.authorId, label: w.authorLabel }) }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (w) => w.createdAt }),
    lastScore: t.exposeInt('lastScore', { nullable: true, description: 'The score the last publication compared gave; null before the first (and for subject watches).' }),
    lastLevel: t.field({ type: LevelEnum, nullable: true, description: 'Its level.', resolve: (w) => w.lastLevel as never }),
    lastPublicationVersion: t.exposeInt('lastPublicationVersion', { nullable: true, description: 'The publication lastScore is from.' }),
    lastSpiking: t.exposeBoolean('lastSpiking', { description: 'Whether the community signal was spiking at the last check.' }),
  }),
});

const WatchPageRef = builder.objectRef<Page<Watch>>('WatchPage').implement({
  description: 'One page of watches, oldest first.',
  fields: (t) => ({
    nodes: t.expose('items', { type: [WatchRef], description: 'The watches of the page.' }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as after: for the next page; null on the last page.' }),
  }),
});

const WatchSubjectInput = builder.inputType('WatchSubjectInput', {
  description: 'A report subject to watch (not an IP, block or AS: those are watched with target).',
  fields: (t) => ({
    kind: t.string({ required: true, description: `One of: ${WATCHABLE_SUBJECT_KINDS.join(', ')}.` }),
    key: t.string({ required: true, description: 'The subject\'s key, normalised as reports normalise it.' }),
  }),
});

const CreateWatchInput = builder.inputType('CreateWatchInput', {
  description: 'A new watch: exactly one of target and subject.',
  fields: (t) => ({
    target: t.string({ description: 'An IP, a CIDR block or an AS number (AS64500).' }),
    subject: t.field({ type: WatchSubjectInput, description: 'Any other report subject.' }),
    scoreThreshold: t.int({ description: 'A score from 1 to 100 (ip, cidr and asn watches); absent: level changes only.' }),
    note: t.string({ description: `Internal note (at most ${WATCH_LIMITS.note} characters).` }),
  }),
});

const UpdateWatchInput = builder.inputType('UpdateWatchInput', {
  description: 'A watch\'s threshold or note; its target never changes (that is another watch).',
  fields: (t) => ({
    id: t.int({ required: true, description: 'The watch\'s id.' }),
    scoreThreshold: t.int({ description: 'New threshold, 1 to 100; null removes it; absent: unchanged.' }),
    note: t.string({ description: `New internal note (at most ${WATCH_LIMITS.note} characters); absent or null: unchanged.` }),
  }),
});

builder.queryFields((t) => ({
  watches: t.field({
    type: WatchPageRef,
    description: 'The workspace\'s watches, oldest first.',
    args: {
      first: t.arg.int({ description: `Watches per page, 1-${WATCH_LIMITS.listPage} (default ${WATCH_LIMITS.defaultListPage}).` }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) => listWatchesFor(ctx.deps, ctx.session.account, { limit: args.first, cursor: args.after }),
  }),
}));

builder.mutationFields((t) => ({
  createWatch: t.field({
    type: WatchRef,
    description: 'Creates a watch for the workspace, authored by the signed-in account. One per target; at most 10,000 per workspace.',
    args: { input: t.arg({ type: CreateWatchInput, required: true, description: 'The watch.' }) },
    resolve: (_r, args, ctx) => createWatchFor(ctx.deps, ctx.session.account, { ...args.input }),
  }),
  updateWatch: t.field({
    type: WatchRef,
    description: 'Changes a watch\'s threshold or note.',
    args: { input: t.arg({ type: UpdateWatchInput, required: true, description: 'The watch and what changes.' }) },
    resolve: (_r, args, ctx) => updateWatchFor(ctx.deps, ctx.session.account, { ...args.input }),
  }),
  deleteWatch: t.field({
    type: WatchRef,
    description: 'Deletes a watch. Another workspace\'s watch id answers not_found, as an unknown one does.',
    args: { id: t.arg.int({ required: true, description: 'The watch\'s id.' }) },
    resolve: (_r, args, ctx) => deleteWatchFor(ctx.deps, ctx.session.account, args.id),
  }),
}));
