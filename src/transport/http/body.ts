import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors.ts';

/**
 * Deepest nesting of objects and arrays a JSON body may have (the body object is level 1). No
 * request of ours needs more than 3 (`related_subjects[i].key`); the limit keeps a 64 KB body of
 * `[[[[…` (30,000 levels) from reaching code that walks values recursively (a stack overflow).
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Reads a JSON object body: checks the content type (415), the size (413, checked on
 * Content-Length first and again while streaming, so a lying client cannot exceed it),
 * the syntax (400 invalid_json), that the top level is an object and that it nests at
 * most MAX_JSON_DEPTH levels (400 invalid_request).
 */
export async function readJsonObject(req: IncomingMessage, maxBytes: number): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'];
  if (!type || !/^application\/json\s*(;|$)/i.test(type)) {
    throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  return jsonObject((await readBody(req, maxBytes)).toString('utf8'));
}

/**
 * JSON text that must be one object: a request body, or one line of a bulk NDJSON body (`what` names which,
 * in the messages), with the same checks and codes either way.
 */
export function jsonObject(text: string, what = 'The request body'): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_json', `${what} is not valid JSON.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('invalid_request', `${what} must be a JSON object.`, [
      { field: '(body)', message: 'must be a JSON object' },
    ]);
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
    throw new AppError('invalid_request', `${what} nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`, [
      { field: '(body)', message: `must not nest more than ${MAX_JSON_DEPTH} levels deep` },
    ]);
  }
  return value as Record<string, unknown>;
}

/**
 * The client closed its connection before its body arrived whole (Node fails the request stream with
 * `aborted`, code ECONNRESET). Nobody is left to answer and nothing of ours went wrong: respond.ts logs it at
 * debug instead of as an unhandled error.
 */
export class ClientDisconnected extends Error {
  constructor(cause: unknown) {
    super('client disconnected before its request was read', { cause });
    this.name = 'ClientDisconnected';
  }
}

/**
 * The whole body, at most `maxBytes` (413 payload_too_large on the declared length, and again while streaming).
 * `onChunk` sees each chunk as it arrives and may refuse the body by throwing (a bulk body's line bound).
 */
export async function readBody(
  req: IncomingMessage,
  maxBytes: number,
  onChunk?: (chunk: Buffer) => void,
): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge(maxBytes);
      onChunk?.(chunk);
      chunks.push(chunk);
    }
  } catch (e) {
    throw (e as NodeJS.ErrnoException).code === 'ECONNRESET' ? new ClientDisconnected(e) : e;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** Iterative (an explicit stack), so the check itself cannot overflow the call stack. */
function nestsDeeperThan(value: object, max: number): boolean {
  const stack: Array<{ v: object; depth: number }> = [{ v: value, depth: 1 }];
  for (let top = stack.pop(); top; top = stack.pop()) {
    if (top.depth > max) return true;
    for (const child of Array.isArray(top.v) ? top.v : Object.values(top.v)) {
      if (typeof child === 'object' && child !== null) stack.push({ v: child, depth: top.depth + 1 });
    }
  }
  return false;
}

function tooLarge(maxBytes: number) {
  return new AppError('payload_too_large', `The request body is larger than the limit of ${maxBytes} bytes.`);
}
