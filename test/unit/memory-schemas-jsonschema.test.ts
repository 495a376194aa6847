import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rateInputSchema, reportInputSchema } from '../../src/domain/memory/schemas.ts';
import { SEVERITY_CODES, SUBJECT_KIND_CODES } from '../../src/domain/memory/vocabulary.ts';

type Json = {
  type?: unknown;
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: unknown;
};

/** The request-body JSON Schema as the OpenAPI document builds it (input side: what clients send). */
const inputSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input' }) as unknown as Json;

describe('JSON Schema of the request bodies (for OpenAPI)', () => {
  it('rate: required ip and rating, integer enum, note bounded with a default, no extra fields', () => {
    const json = inputSchema(rateInputSchema);
    expect(json.required).toEqual(['ip', 'rating']);
    expect(json.additionalProperties).toBe(false);
    expect(json.properties.rating).toMatchObject({ type: 'integer', enum: [1, 0, -1] });
    expect(json.properties.note).toMatchObject({
      default: '',
      anyOf: [{ type: 'string', maxLength: 1000 }, { type: 'null' }],
    });
  });

  it('report: required fields, vocabularies as enums, bounds and defaults', () => {
    const json = inputSchema(reportInputSchema);
    expect(json.required).toEqual(['kind', 'key', 'outcomeCode']);
    expect(json.additionalProperties).toBe(false);
    expect(json.properties.kind).toMatchObject({ type: 'string', enum: [...SUBJECT_KIND_CODES] });
    expect(json.properties.severity).toMatchObject({
      default: 'medium',
      anyOf: [{ enum: [...SEVERITY_CODES] }, { type: 'null' }],
    });
    expect(json.properties.title).toMatchObject({ default: '', anyOf: [{ maxLength: 200 }, { type: 'null' }] });
    expect(json.properties.details).toMatchObject({ anyOf: [{ maxLength: 10_000 }, { type: 'null' }] });
    expect(json.properties.tags).toMatchObject({
      default: [],
      anyOf: [{ type: 'array', maxItems: 20 }, { type: 'null' }],
    });
    expect(json.properties.namespace).toMatchObject({ default: '' });
    expect(json.properties.status).toMatchObject({
      default: '',
      anyOf: [{ enum: ['', 'open', 'confirmed', 'disputed', 'resolved'] }, { type: 'null' }],
    });
    const related = json.properties.relatedSubjects as { anyOf: Array<{ maxItems?: number; items?: Json }> };
    expect(related.anyOf[0]?.maxItems).toBe(50);
    expect(related.anyOf[0]?.items).toMatchObject({ required: ['kind', 'key'], additionalProperties: false });
    expect(related.anyOf[0]?.items?.properties.role).toMatchObject({ default: 'linked' });
  });

  it('also generates with unrepresentable: "any" (the option the OpenAPI builder passes)', () => {
    expect(z.toJSONSchema(reportInputSchema, { io: 'input', unrepresentable: 'any' })).toEqual(
      z.toJSONSchema(reportInputSchema, { io: 'input' }),
    );
  });
});
