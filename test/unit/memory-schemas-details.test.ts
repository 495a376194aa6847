import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { camelToSnakePath, fieldPath, snakeToCamelKeys, toDetails } from '../../src/domain/validation.ts';
import { reportInputSchema } from '../../src/domain/memory/schemas.ts';

describe('fieldPath and camelToSnakePath', () => {
  it('writes array indexes in brackets and the root as "body"', () => {
    expect(fieldPath(['relatedSubjects', 2, 'key'])).toBe('relatedSubjects[2].key');
    expect(fieldPath(['tags', 0])).toBe('tags[0]');
    expect(fieldPath([])).toBe('body');
  });

  it('renames each camelCase segment to its snake_case wire name', () => {
    expect(camelToSnakePath('relatedSubjects[2].key')).toBe('related_subjects[2].key');
    expect(camelToSnakePath('outcomeCode')).toBe('outcome_code');
    expect(camelToSnakePath('ip')).toBe('ip');
  });
});

describe('snakeToCamelKeys', () => {
  it('renames keys recursively through objects and arrays and never touches values', () => {
    expect(
      snakeToCamelKeys({
        outcome_code: 'fraud_watch',
        related_subjects: [{ kind: 'ipaddress', key: 'a_b', role: 'source_ip' }],
        tags: ['snake_case_tag'],
        nested: { share_policy: 'clear_share' },
      }),
    ).toEqual({
      outcomeCode: 'fraud_watch',
      relatedSubjects: [{ kind: 'ipaddress', key: 'a_b', role: 'source_ip' }],
      tags: ['snake_case_tag'],
      nested: { sharePolicy: 'clear_share' },
    });
  });

  it('returns non-objects unchanged', () => {
    expect(snakeToCamelKeys('a_b')).toBe('a_b');
    expect(snakeToCamelKeys(null)).toBeNull();
    const date = new Date(0);
    expect(snakeToCamelKeys(date)).toBe(date);
  });

  it('keeps both spellings visible on a collision so a strict schema rejects one instead of dropping it', () => {
    expect(snakeToCamelKeys({ outcome_code: 'spam', outcomeCode: 'fraud_watch' })).toEqual({
      outcomeCode: 'fraud_watch',
      outcome_code: 'spam',
    });
    expect(snakeToCamelKeys({ outcomeCode: 'fraud_watch', outcome_code: 'spam' })).toEqual({
      outcomeCode: 'fraud_watch',
      outcome_code: 'spam',
    });
  });

  it('keeps a "__proto__" key as plain data (no prototype change)', () => {
    const out = snakeToCamelKeys(JSON.parse('{"__proto__": {"polluted": true}, "ip": "x"}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'ip']);
  });

  it('leaves leading underscores alone', () => {
    expect(snakeToCamelKeys({ _private: 1 })).toEqual({ _private: 1 });
  });
});

describe('toDetails', () => {
  it('round-trips a REST body: snake keys in, snake field paths out', () => {
    const body = snakeToCamelKeys({
      kind: 'domain',
      key: 'example.com',
      outcome_code: 'spam',
      related_subjects: [{ kind: 'ipaddress', key: 'nope' }],
    });
    const result = reportInputSchema.safeParse(body);
    expect(result.success).toBe(false);
    const wire = toDetails(result.error!).map((d) => ({ ...d, field: camelToSnakePath(d.field) }));
    expect(wire).toEqual([
      { field: 'related_subjects[0].key', message: 'is not a valid IPv4 or IPv6 address (kind ipaddress)' },
    ]);
  });

  it('rewrites zod default wording into plain English for schemas without their own messages', () => {
    const schema = z.object({
      s: z.string().max(3),
      n: z.number(),
      a: z.array(z.number()).min(2),
      e: z.enum(['x', 'y']),
      t: z.string().min(1),
    });
    const result = schema.safeParse({ s: 'abcd', n: 'x', a: [1], e: 'z', t: '' });
    expect(toDetails(result.error!)).toEqual([
      { field: 's', message: 'must be at most 3 characters' },
      { field: 'n', message: 'must be a number' },
      { field: 'a', message: 'must have at least 2 items' },
      { field: 'e', message: 'must be one of: x, y' },
      { field: 't', message: 'must not be empty' },
    ]);
    expect(toDetails(schema.safeParse({}).error!)[0]).toEqual({ field: 's', message: 'is required' });
  });
});
