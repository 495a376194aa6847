import { builder } from '../../graphql/builder.ts';
import { WATCH_LIMITS } from '../../../domain/watches/schemas.ts';
import { CreateWatchInput, UpdateWatchInput, WatchPageRef, WatchRef } from '../../graphql/types/watches.ts';
import { createWatchFor, deleteWatchFor, listWatchesFor, updateWatchFor } from '../watch-actions.ts';
import { actingAccount, WorkspaceMutation, WorkspaceQuery } from './roots.ts';

/** Watches on /workspace/graphql: the API graph's fields and types, run through watch-actions.ts for the session. */

builder.objectFields(WorkspaceQuery, (t) => ({
  watches: t.field({
    type: WatchPageRef,
    description: "The workspace's watches, oldest first.",
    args: {
      first: t.arg.int({
        description: `Watches per page, 1-${WATCH_LIMITS.listPage} (default ${WATCH_LIMITS.defaultListPage}).`,
      }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
    },
    resolve: (_r, args, ctx) => listWatchesFor(...actingAccount(ctx), { limit: args.first, cursor: args.after }),
  }),
}));

builder.objectFields(WorkspaceMutation, (t) => ({
  createWatch: t.field({
    type: WatchRef,
    description:
      'Creates a watch for the workspace, authored by the signed-in account. One per target; at most 10,000 per workspace.',
    args: { input: t.arg({ type: CreateWatchInput, required: true, description: 'The watch.' }) },
    resolve: (_r, args, ctx) => createWatchFor(...actingAccount(ctx), { ...args.input }),
  }),
  updateWatch: t.field({
    type: WatchRef,
    description: "Changes a watch's threshold or note.",
    args: { input: t.arg({ type: UpdateWatchInput, required: true, description: 'The watch and what changes.' }) },
    resolve: (_r, args, ctx) => updateWatchFor(...actingAccount(ctx), { ...args.input }),
  }),
  deleteWatch: t.field({
    type: WatchRef,
    description: "Deletes a watch. Another workspace's watch id answers not_found, as an unknown one does.",
    args: { id: t.arg.int({ required: true, description: "The watch's id." }) },
    resolve: (_r, args, ctx) => deleteWatchFor(...actingAccount(ctx), args.id),
  }),
}));
