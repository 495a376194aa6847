import type { z } from 'zod';
import type { ErrorCode } from '../../errors.ts';
import type { RequestContext } from '../http/request-context.ts';
import { compileOutput, type Compiled } from './compile.ts';

/**
 * One operation of the API, declared once: its input, what it runs, its answer and how it is documented. The REST
 * route, the MCP tool, the OpenAPI path and the GraphQL field's resolver are all built from this declaration
 * (rest/router.ts, mcp/tools/, rest/openapi.ts, graphql/types/), so auth, metering and errors are the same on
 * every surface and a new endpoint is a domain function plus one file here (docs/decisions/0042-one-catalogue-of-operations.md).
 */
export type OperationSpec<I, R> = {
  /** The answer's `endpoint` word. */
  name: string;
  /** The REST path, without its optional trailing slash. */
  path: string;
  /** The input as the domain checks it (camelCase); REST bodies and MCP arguments arrive snake_case and are renamed first. */
  input: z.ZodType<I, unknown>;
  /**
   * The call into the domain. GraphQL calls it too, with its own arguments checked into the same input. A write that
   * takes an Idempotency-Key reads it from `idempotencyKey` (GraphQL's argument), else from the context (REST's
   * header, MCP's argument).
   */
  resolve: (input: I, ctx: RequestContext, idempotencyKey?: string) => Promise<R>;
  /** The answer's JSON Schema in wire names, annotated with where each value comes from (wire.ts). */
  output: object;
  /**
   * metered: counted on a daily quota (REST sends RateLimit-* headers, read from `quota` of the result; the
   * document lists the metering refusals). free: never counted.
   */
  metering: 'metered' | 'free';
  /**
   * A GET answered in formats of its own (the blocklist): the input read from the query string, the answer's
   * status, headers and body from the result. Without it the operation is a POST of a JSON body answered in JSON.
   */
  get?: {
    query: (params: URLSearchParams) => Record<string, unknown>;
    answer: (result: R) => { status: number; headers: Record<string, string>; body: string };
    /** The media types of a 200, each with its example, and what a 304 means. */
    content: Record<string, { example: unknown }>;
    notModified: string;
  };
  /**
   * A write a client may retry safely with an Idempotency-Key (REST header, MCP argument): answered 201 when it
   * stored something, 200 with Idempotent-Replayed when `replayed` says the key repeated an earlier write.
   */
  idempotent?: { replayed: (result: R) => boolean };
  /** The status of a success when it is not 200 (201: a create without Idempotency-Key). */
  status?: 201;
  /** Runs the call in the caller's turn for this input (score batches: http/score-batch-gate.ts). */
  inTurn?: <T>(workspaceId: number, input: I, run: () => Promise<T>) => Promise<T>;
  doc: {
    tag: string;
    operationId: string;
    summary: string;
    description: string;
    /**
     * Components' names of the request and response schemas, and their examples. `jsonSchema`: the request's
     * component when it is not the input's (a bulk body's line); `content`: the request's media types when the
     * body is not one JSON object (a bulk body: NDJSON or CSV; a string schema names a component), whose refusals
     * are then all in `errors`. null: a GET, which has no request body.
     */
    request: {
      schema: string;
      example: unknown;
      jsonSchema?: object;
      content?: Record<string, { schema: string | object; example: unknown }>;
    } | null;
    response: { schema: string; description: string; example: unknown };
    /** Error codes of this operation beyond those of every JSON route (body, key, database). */
    errors: ErrorCode[];
    /** This operation's own cause of an error code, where the document's general one says too little. */
    errorsWhen?: Partial<Record<ErrorCode, string>>;
  };
};

export type Operation<I = unknown, R = unknown> = OperationSpec<I, R> & Compiled<R>;

export function defineOperation<I, R>(spec: OperationSpec<I, R>): Operation<I, R> {
  if (spec.idempotent && spec.status) throw new Error(`${spec.name}: an idempotent write's status follows its replay`);
  return { ...spec, ...compileOutput<R>(spec.output) };
}

/** What a metered call may be refused with, besides what every JSON route may answer. */
export const METERED_ERRORS: ErrorCode[] = ['tier_not_eligible', 'quota_exceeded', 'rate_limited', 'quota_unavailable'];
