import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { traceParentOf } from '../../src/transport/http/trace-context.ts';

const req = (...values: string[]) =>
  ({ headersDistinct: values.length ? { traceparent: values } : {} }) as unknown as IncomingMessage;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('W3C traceparent', () => {
  it('takes a valid header, version 00 exactly and later versions with fields appended', () => {
    expect(traceParentOf(req(`00-${TRACE}-00f067aa0ba902b7-01`))).toEqual({
      header: `00-${TRACE}-00f067aa0ba902b7-01`,
      traceId: TRACE,
    });
    expect(traceParentOf(req(`00-${TRACE}-00f067aa0ba902b7-00`))?.traceId).toBe(TRACE);
    expect(traceParentOf(req(`cc-${TRACE}-00f067aa0ba902b7-01-what-the-future-adds`))?.traceId).toBe(TRACE);
  });

  it.each([
    ['absent', []],
    ['version ff', [`ff-${TRACE}-00f067aa0ba902b7-01`]],
    ['an all-zero trace id', [`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`]],
    ['an all-zero parent id', [`00-${TRACE}-0000000000000000-01`]],
    ['upper-case hex', [`00-${TRACE.toUpperCase()}-00f067aa0ba902b7-01`]],
    ['a short trace id', [`00-${TRACE.slice(1)}-00f067aa0ba902b7-01`]],
    ['version 00 with more fields', [`00-${TRACE}-00f067aa0ba902b7-01-extra`]],
    ['text around it', [`x 00-${TRACE}-00f067aa0ba902b7-01`]],
    ['two headers', [`00-${TRACE}-00f067aa0ba902b7-01`, `00-${TRACE}-00f067aa0ba902b7-01`]],
    ['a later version carrying a control character', [`01-${TRACE}-00f067aa0ba902b7-01-\u0007`]],
    ['over 512 characters', [`01-${TRACE}-00f067aa0ba902b7-01-${'a'.repeat(600)}`]],
  ])('ignores %s', (_what, values) => {
    expect(traceParentOf(req(...values))).toBeNull();
  });
});
