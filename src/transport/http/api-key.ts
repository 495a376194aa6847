import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors.ts';
import type { KeyVerifier, Viewer } from '../../domain/access/verifier.ts';
import { noteRequest } from './request-notes.ts';

/**
 * Reads the API key from `X-API-Key` or `Authorization: Bearer <key>`. Returns null when
 * neither is present. Both present with different keys is a client bug worth naming (400):
 * which one should win is not ours to guess.
 */
export function readApiKey(
  xApiKey: string | string[] | null | undefined,
  authorization: string | string[] | null | undefined,
): string | null {
  if (Array.isArray(xApiKey) || Array.isArray(authorization)) {
    throw new AppError('conflicting_api_keys', 'Send exactly one X-API-Key or Authorization header.');
  }
  const fromHeader = xApiKey?.trim() || null;
  let fromBearer: string | null = null;
  if (authorization) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (!match) throw new AppError('invalid_api_key', 'The Authorization header must be "Bearer <API_KEY>".');
    fromBearer = match[1]!;
  }
  if (fromHeader && fromBearer && fromHeader !== fromBearer) {
    throw new AppError(
      'conflicting_api_keys',
      'The X-API-Key header and the Authorization: Bearer header carry different keys; send one key.',
    );
  }
  return fromHeader ?? fromBearer;
}

export function requireApiKey(
  xApiKey: string | string[] | null | undefined,
  authorization: string | string[] | null | undefined,
): string {
  const key = readApiKey(xApiKey, authorization);
  if (key === null) throw new AppError('missing_api_key');
  return key;
}

/**
 * The two key headers of a request, a repeated one as an array. Node joins a repeated
 * `X-API-Key` into one "a, b" string and keeps only the first `Authorization`, so
 * `req.headers` cannot show the repetition; `headersDistinct` keeps every line.
 */
export function apiKeyHeaders(req: IncomingMessage): [string | string[] | undefined, string | string[] | undefined] {
  const one = (name: string) => {
    const v = req.headersDistinct[name];
    return v && v.length > 1 ? v : v?.[0];
  };
  return [one('x-api-key'), one('authorization')];
}

/** Verifies a key and notes whose it is on the request at once, so even a request that fails later is logged with it. */
export async function verifiedViewer(verifier: KeyVerifier, req: IncomingMessage, key: string): Promise<Viewer> {
  const viewer = await verifier.verify(key);
  noteRequest(req, { workspaceId: viewer.workspaceId, keyPrefix: viewer.keyPrefix });
  return viewer;
}
