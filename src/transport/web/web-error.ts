/** An error the control plane renders as a page (or JSON for /workspace/graphql) with its status. */
export class WebError extends Error {
  constructor(readonly status: number, message: string, readonly headers: Record<string, string> = {}) { super(message); }
}
export const forbidden = (message: string) => new WebError(403, message);
