import type { RequestContext } from '../http/request-context.ts';
import type { WebDeps } from '../http/web-deps.ts';
import type { Session } from '../../domain/accounts/sessions.ts';

/** The control plane's session on /workspace/graphql; absent on /graphql, which takes API keys. */
export type SignedIn = {
  deps: WebDeps;
  session: Session;
  /** True when the request carried the session's CSRF token in X-CSRF-Token (mutations need it). */
  csrfOk: boolean;
};

/**
 * What every resolver of the one GraphQL builder gets: the API-key request's context, and on /workspace/graphql
 * the signed-in session too (there `viewer` is null: API keys are refused before execution).
 */
export type GraphContext = RequestContext & { signedIn?: SignedIn };
