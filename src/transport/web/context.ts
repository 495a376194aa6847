import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../../config.ts';
import type { Session } from '../../domain/accounts/sessions.ts';

export type { WebDeps } from '../http/web-deps.ts';

/** One control-plane request. */
export type WebRequest = {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  requestId: string;
  query: URLSearchParams;
  ip: string;
  session: Session | null;
};

export type SignedIn = WebRequest & { session: Session };

export const SESSION_COOKIE = 'rk_session';
export const PRE_CSRF_COOKIE = 'rk_csrf';
export const secureCookies = (c: Config) => c.baseUrl.startsWith('https://');
