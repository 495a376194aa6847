import { builder } from '../../graphql/builder.ts';
import type { GraphContext, SignedIn } from '../../graphql/context.ts';
import { AppError } from '../../../errors.ts';

/**
 * The roots of /workspace/graphql, served there as Query and Mutation (graphql/sub-graph.ts). Its fields run with
 * the signed-in session; the types they return are the API graph's own (graphql/types/), declared once.
 */
export const WorkspaceQuery = builder.objectRef<object>('WorkspaceQuery').implement({
  description:
    'What the signed-in account sees of its workspace. ' +
    'Every field needs a session (cookie rk_session); API keys are refused.',
});
export const WorkspaceMutation = builder.objectRef<object>('WorkspaceMutation').implement({
  description:
    "Changes to the signed-in account's workspace. " +
    "Every mutation needs the session's CSRF token in the X-CSRF-Token header (see `csrfToken`).",
});

/** The session of a /workspace/graphql request (the transport refuses a request without one before execution). */
export function signedIn(ctx: GraphContext): SignedIn {
  if (!ctx.signedIn) throw new AppError('unauthenticated');
  return ctx.signedIn;
}

/** The first two arguments of the workspace actions (web/*-actions.ts): the control plane's deps, the account. */
export function actingAccount(ctx: GraphContext) {
  const { deps, session } = signedIn(ctx);
  return [deps, session.account] as const;
}
