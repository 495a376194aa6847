import type { ServerResponse } from 'node:http';
import type { Logger } from '../../platform/log.ts';
import type { RequestContext } from '../http/request-context.ts';

/**
 * An operation whose answer is a stream of records (NDJSON or CSV) rather than one JSON object: the report export
 * and the override audit trail. It is declared here once, like the JSON operations (operation.ts), and REST's route
 * and the OpenAPI path are built from the declaration (rest/router.ts, rest/openapi.ts). It differs in what it
 * answers: it writes its records as it reads them, up to 100,000 of them, so there is no result to serialise, no
 * GraphQL field (the graph pages `reports`; a client reads the stream) and no MCP tool (a tool answers one object).
 * Decision 0061.
 */
export type StreamOperation<I = unknown> = {
  /** The REST path, without its optional trailing slash. */
  path: string;
  /**
   * The input from the request's fields, already renamed to camelCase (a JSON body, or the query string through
   * `query`); refuses what it cannot take with an invalid_request naming the wire field.
   */
  read: (raw: Record<string, unknown>) => I;
  /** Also answered as a GET: the query string's fields (a list comma-separated), before `read`. */
  query?: (params: URLSearchParams) => Record<string, unknown>;
  /** The request's ceiling when its reads are metered as work, longer than a query's: a slow client may read it. */
  maxMs?: number;
  /**
   * Writes the answer: its headers once the size of this answer is known, then its records as they are read.
   * `next(cursor)` is the Link to the next answer of a GET (undefined for a POST).
   */
  write: (input: I, ctx: RequestContext, out: StreamOut) => Promise<void>;
  doc: StreamDoc;
};

export type StreamOut = {
  res: ServerResponse;
  log: Logger;
  next: (cursor: string) => string | undefined;
};

/** What the OpenAPI document says of a stream: rest/openapi.ts builds its path item from it, a GET and a POST alike. */
export type StreamDoc = {
  tag: string;
  /** Each method's operationId and summary; a GET takes the request's properties as query parameters. */
  post: { operationId: string; summary: string };
  get?: { operationId: string; summary: string };
  description: string;
  request: { schema: string; jsonSchema: object; example: unknown };
  response: {
    description: string;
    /** Media types, each with its record's schema (a string names a component) and an example. */
    content: Record<string, { schema: string | object; example: unknown }>;
  };
  /** The components the stream adds: its record's schema. */
  schemas: Record<string, object>;
};

export const defineStream = <I>(spec: StreamOperation<I>): StreamOperation<I> => spec;
