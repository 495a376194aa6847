import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.ts';

/**
 * Reads a JSON object body: checks the content type (415), the size (413, checked on
 * Content-Length first and again while streaming, so a lying client cannot exceed it),
 * the syntax (400 invalid_json) and that the top level is an object (400 invalid_request).
 */
export async function readJsonObject(req: IncomingMessage, maxBytes: number): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'];
  if (!type || !/^application\/json\s*(;|$)/i.test(type)) {
    throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('invalid_request', 'The request body must be a JSON object.', [{ field: '(body)', message: 'must be a JSON object' }]);
  }
  return value as Record<string, unknown>;
}

function tooLarge(maxBytes: number) {
  return new AppError('payload_too_large', `The request body is larger than the limit of ${maxBytes} bytes.`);
}
