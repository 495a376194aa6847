import type { z } from 'zod';
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { AppError, ErrorDetail } from '../../errors.ts';
import { camelToSnakePath, checkInput, snakeToCamelKeys } from '../../domain/validation.ts';
import { IDEMPOTENCY_KEY, IDEMPOTENCY_TTL_HOURS } from '../../domain/memory/idempotency.ts';
import { bodySchema, errorBody } from '../operations/schemas.ts';
import type { RequestContext } from '../http/request-context.ts';

/**
 * One MCP tool: a thin translation onto what REST and GraphQL already run. Arguments arrive in the REST wire
 * names (snake_case), are renamed and checked by the domain's zod schema exactly as a REST body is (same
 * messages, same `details` field names), and then the same operation or domain function runs with the same
 * context. The tool adds nothing but the wire shape.
 */
export type ToolSpec<I = never> = {
  name: string;
  title: string;
  description: string;
  annotations: Required<Omit<ToolAnnotations, 'title'>>;
  /** The arguments' schema, in the domain's camelCase names (its JSON Schema is advertised in snake_case). */
  input: z.ZodType<I>;
  /** The JSON Schema advertised instead, when the zod schema leaves items to be checked one by one (report_subjects). */
  inputJsonSchema?: Record<string, unknown>;
  /** Writes take an optional `idempotency_key` argument: REST's Idempotency-Key header, with its rules. */
  idempotencyKey?: boolean;
  /** JSON Schema of a successful answer's structuredContent. */
  output: Record<string, unknown>;
  /** `raw` is the renamed arguments before the schema's transforms: what REST hands its operation. */
  run(input: I, ctx: RequestContext, raw: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The text block for clients that read only `content`: by default the answer's JSON, as the MCP specification advises. */
  render?(body: Record<string, unknown>): string;
};

const idempotencyKeyProperty = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x21-\\x7e]+$',
  description:
    `Makes a retry return the first answer without writing twice (as REST's Idempotency-Key header; kept ${IDEMPOTENCY_TTL_HOURS} hours per workspace). ` +
    'Reusing a key with other arguments is refused with idempotency_key_reused.',
};

/** A tool error's structuredContent: REST's error body, plus the Retry-After delay an agent cannot read from a header. */
const errorResult = {
  ...errorBody,
  properties: {
    ...errorBody.properties,
    retry_after_s: {
      type: 'integer',
      description: 'Seconds to wait before retrying (rate_limited, quota_exceeded, *_unavailable).',
    },
  },
};

/** The tools/list entry, built once: the same object answers every listing. */
export function listing(spec: ToolSpec<unknown>): Tool {
  const input = (spec.inputJsonSchema ?? bodySchema(spec.input)) as {
    type: 'object';
    properties?: Record<string, object>;
  };
  if (spec.idempotencyKey) input.properties = { ...input.properties, idempotency_key: idempotencyKeyProperty };
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: input,
    // Errors carry structuredContent too (ok: false), so the schema admits both answers.
    outputSchema: {
      type: 'object',
      properties: { ok: { type: 'boolean' } },
      required: ['ok'],
      oneOf: [spec.output, errorResult],
    },
    annotations: { title: spec.title, ...spec.annotations },
  };
}

/** Validates the arguments as REST validates a body; every problem is reported at once, in wire names. */
export function parseArguments<I>(spec: ToolSpec<I>, args: Record<string, unknown>) {
  let rest = args;
  let idempotencyKey: unknown;
  if (spec.idempotencyKey) ({ idempotency_key: idempotencyKey, ...rest } = args);
  const raw = snakeToCamelKeys(rest) as Record<string, unknown>;
  const extra: ErrorDetail[] =
    idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || !IDEMPOTENCY_KEY.test(idempotencyKey))
      ? [{ field: 'idempotency_key', message: 'must be 1-255 printable ASCII characters' }]
      : [];
  const input = checkInput(spec.input, raw, {
    field: camelToSnakePath,
    extra,
    problem: `The arguments of ${spec.name} are invalid`,
  });
  return { input, raw, idempotencyKey: idempotencyKey as string | undefined };
}

export function success(
  body: Record<string, unknown>,
  render: (body: Record<string, unknown>) => string = JSON.stringify,
): CallToolResult {
  return { content: [{ type: 'text', text: render(body) }], structuredContent: body };
}

export function failure(error: AppError): CallToolResult {
  const retry = Number(error.headers?.['retry-after']);
  const body = { ...error.toBody(), ...(Number.isFinite(retry) ? { retry_after_s: retry } : {}) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}
