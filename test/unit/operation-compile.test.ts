import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileOutput } from '../../src/transport/operations/compile.ts';
import { from, oneOfBy, same } from '../../src/transport/operations/wire.ts';

/** An answer schema using every part the compiler knows, with each kind of source. */
const schema = {
  type: 'object',
  required: ['ok', 'query', 'count_10m', 'when', 'entity', 'tags', 'links', 'items', 'flag'],
  properties: {
    ok: { const: true },
    query: same({ type: 'object', required: ['ip'], properties: { ip: { type: 'string' } } }),
    count_10m: { type: 'integer' },
    when: { type: ['string', 'null'], format: 'date-time' },
    entity: {
      type: ['object', 'null'],
      required: ['key', 'share'],
      properties: { key: { type: 'string' }, share: { type: 'number' } },
    },
    tags: { type: 'array', items: { type: 'string' } },
    links: from((d: { pairs: Array<[string, string]> }) => Object.fromEntries(d.pairs), {
      type: 'object',
      additionalProperties: { type: 'string' },
    }),
    items: {
      type: 'array',
      items: oneOfBy((i: { error: string | null }) => (i.error ? 1 : 0), {
        oneOf: [
          from('value', {
            type: 'object',
            required: ['ok', 'level'],
            properties: { ok: { const: true }, level: { enum: ['low', 'high'] } },
          }),
          {
            type: 'object',
            required: ['ok', 'error'],
            properties: { ok: { const: false }, error: from('error', { type: 'string' }) },
          },
        ],
      }),
    },
    flag: from('nested.deep', { type: 'boolean' }),
    note: { type: 'string' },
  },
};

const { serialize, shape } = compileOutput<Record<string, unknown>>(schema);

const domain = (over: Record<string, unknown> = {}) => ({
  ip: '192.0.2.1',
  count10m: 3,
  when: new Date('2026-11-27T10:00:00.000Z'),
  entity: { key: 'AS1 "quoted"\n', share: 0.15, extra: 'not on the wire' },
  tags: ['a', 'b\u2028'],
  pairs: [
    ['ip', 'http://x/ip'],
    ['asn', 'http://x/asn'],
  ],
  items: [
    { value: { level: 'high', hidden: 1 }, error: null },
    { value: null, error: 'invalid_ip' },
  ],
  nested: { deep: false },
  ...over,
});

describe('an output schema compiled into a serializer and a shaper', () => {
  it('writes exactly the schema: its properties in its order, read through each source, dates as ISO strings', () => {
    expect(serialize(domain())).toBe(
      '{"ok":true,"query":{"ip":"192.0.2.1"},"count_10m":3,"when":"2026-11-27T10:00:00.000Z",' +
        '"entity":{"key":"AS1 \\"quoted\\"\\n","share":0.15},"tags":["a","b\u2028"],' +
        '"links":{"ip":"http://x/ip","asn":"http://x/asn"},' +
        '"items":[{"ok":true,"level":"high"},{"ok":false,"error":"invalid_ip"}],"flag":false}',
    );
  });

  it('writes null for a null object or value, and an optional property only when it is set', () => {
    expect(JSON.parse(serialize(domain({ entity: null, when: null, note: 'n' })))).toMatchObject({
      entity: null,
      when: null,
      note: 'n',
    });
    expect(serialize(domain())).not.toContain('"note"');
  });

  it("agrees with JSON.stringify of the shaper's object, whatever the values", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
        fc.option(fc.record({ key: fc.string(), share: fc.double({ noNaN: true, noDefaultInfinity: true }) })),
        fc.array(fc.string(), { maxLength: 4 }),
        fc.option(fc.string()),
        (ip, count10m, entity, tags, note) => {
          const d = domain({ ip, count10m, entity, tags, ...(note === null ? {} : { note }) });
          expect(serialize(d)).toBe(JSON.stringify(shape(d)));
        },
      ),
    );
  });

  it('refuses a schema it cannot serialise, and a oneOf without its chooser, when it is compiled', () => {
    expect(() => compileOutput({ type: 'object', required: [], properties: { x: {} } })).toThrow(/no serializer/);
    expect(() => compileOutput({ oneOf: [{ const: 1 }] })).toThrow(/chooser/);
  });
});
