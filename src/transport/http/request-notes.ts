import type { IncomingMessage } from 'node:http';

/**
 * What a request's handlers learn that its access line and metrics report once it ends: the route pattern it
 * matched (never its raw path: a bounded label), and whose API key it carried. The HTTP server notes the pattern
 * of the route it picked; a router under a prefix (REST) notes its own, finer one; requestContext notes the viewer;
 * the error renderer notes the code of an error answer, so the access line says why a request failed.
 */
export type RequestNotes = {
  route?: string;
  workspaceId?: number;
  keyPrefix?: string;
  error?: string;
  /** performance.now() when the server took the request: its execution ceiling counts from here (graphql/ceilings.ts). */
  arrivedAt?: number;
};

const notes = new WeakMap<IncomingMessage, RequestNotes>();

export function noteRequest(req: IncomingMessage, learned: RequestNotes): void {
  const current = notes.get(req);
  if (current) Object.assign(current, learned);
  else notes.set(req, { ...learned });
}

export function notesOf(req: IncomingMessage): RequestNotes {
  return notes.get(req) ?? {};
}
