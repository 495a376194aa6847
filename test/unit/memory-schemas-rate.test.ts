import { describe, expect, it } from 'vitest';
import { rateInputSchema } from '../../src/domain/memory/schemas.ts';
import { toDetails } from '../../src/domain/validation.ts';

/** Parsed data on success, or the details list a client would get. */
function check(body: unknown) {
  const result = rateInputSchema.safeParse(body);
  return result.success ? { data: result.data } : { details: toDetails(result.error) };
}

describe('rateInputSchema', () => {
  it('canonicalises the ip and defaults the note to empty', () => {
    expect(check({ ip: '::FFFF:203.0.113.5', rating: -1 })).toEqual({
      data: { ip: '203.0.113.5', rating: -1, note: '' },
    });
    expect(check({ ip: '2001:0DB8::0001', rating: 0, note: 'seen once' })).toEqual({
      data: { ip: '2001:db8::1', rating: 0, note: 'seen once' },
    });
  });

  it.each([1, 0, -1])('accepts rating %i', (rating) => {
    expect(check({ ip: '192.0.2.1', rating })).toMatchObject({ data: { rating } });
  });

  it.each([2, -2, 0.5, '1', true, null])('refuses rating %j with the meaning of each value', (rating) => {
    expect(check({ ip: '192.0.2.1', rating })).toEqual({
      details: [{ field: 'rating', message: 'must be an integer: 1 (good), 0 (neutral) or -1 (bad)' }],
    });
  });

  it('reports every missing required field at once', () => {
    expect(check({})).toEqual({
      details: [
        { field: 'ip', message: 'is required' },
        { field: 'rating', message: 'is required' },
      ],
    });
  });

  it('gives the ip parser reason on the ip field', () => {
    expect(check({ ip: 'fe80::1%eth0', rating: 1 })).toEqual({
      details: [{ field: 'ip', message: 'must not carry an IPv6 zone id' }],
    });
    expect(check({ ip: 12, rating: 1 })).toEqual({ details: [{ field: 'ip', message: 'must be a string' }] });
  });

  it('allows a note of exactly 1000 characters (counted in code points) and refuses 1001', () => {
    expect(check({ ip: '192.0.2.1', rating: 1, note: 'n'.repeat(1000) })).toMatchObject({
      data: { note: 'n'.repeat(1000) },
    });
    expect(check({ ip: '192.0.2.1', rating: 1, note: '😀'.repeat(1000) })).toMatchObject({
      data: { note: '😀'.repeat(1000) },
    });
    expect(check({ ip: '192.0.2.1', rating: 1, note: 'n'.repeat(1001) })).toEqual({
      details: [{ field: 'note', message: 'must be at most 1000 characters' }],
    });
  });

  it('keeps line breaks and tabs in the note but refuses other control characters', () => {
    expect(check({ ip: '192.0.2.1', rating: 1, note: 'line 1\n\tline 2' })).toMatchObject({
      data: { note: 'line 1\n\tline 2' },
    });
    expect(check({ ip: '192.0.2.1', rating: 1, note: 'bell\u0007' })).toEqual({
      details: [{ field: 'note', message: 'must not contain control characters (found U+0007)' }],
    });
  });

  it('treats a null note as absent', () => {
    expect(check({ ip: '192.0.2.1', rating: 1, note: null })).toMatchObject({ data: { note: '' } });
  });

  it('refuses unknown fields by name so a typo is not silently dropped', () => {
    expect(check({ ip: '192.0.2.1', rating: 1, notes: 'typo', extra: 1 })).toEqual({
      details: [
        { field: 'notes', message: 'is not a known field' },
        { field: 'extra', message: 'is not a known field' },
      ],
    });
  });

  it('refuses a body that is not an object', () => {
    expect(check([1])).toEqual({ details: [{ field: 'body', message: 'must be a JSON object' }] });
  });
});
