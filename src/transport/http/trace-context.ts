import type { IncomingMessage } from 'node:http';

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): a valid incoming `traceparent` is echoed on the
 * response and its trace id written on the request's access line, so a request can be found by the trace a
 * proxy or a client started. Version 00 is exactly version-traceid-parentid-flags; a later version may append
 * fields after a dash (the specification's rule for forward compatibility); version ff, an all-zero trace or
 * parent id, upper-case hex, or a repeated header is invalid and ignored (nothing echoed, nothing logged).
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[\x21-\x7e]*)?$/;
const ZEROS = /^0+$/;

export type TraceParent = { header: string; traceId: string };

export function traceParentOf(req: IncomingMessage): TraceParent | null {
  const sent = req.headersDistinct.traceparent;
  if (sent?.length !== 1) return null;
  const header = sent[0]!.trim();
  const m = TRACEPARENT.exec(header);
  if (!m || header.length > 512) return null;
  const [, version, traceId, parentId, , rest] = m;
  if (version === 'ff' || ZEROS.test(traceId!) || ZEROS.test(parentId!) || (version === '00' && rest !== undefined))
    return null;
  return { header, traceId: traceId! };
}
