/**
 * Streaming a feed file from disk into the parser, line by line, so a multi-million-line list
 * never sits in memory as one string (only its parsed entries do).
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { AppError } from '../../errors.ts';
import { FeedParser, type FeedFormat, type FeedParseResult } from './parse.ts';

export type ReadFeedOptions = {
  column?: string;
  /** Called every `progressEvery` lines and once at the end (bytes are what the stream has read so far). */
  onProgress?: (linesRead: number, bytesRead: number, totalBytes: number) => void;
  progressEvery?: number;
};

export async function readFeedFile(
  path: string,
  format: FeedFormat,
  opts: ReadFeedOptions = {},
): Promise<FeedParseResult> {
  const info = await stat(path); // a missing file fails here, with its path in the error
  if (info.isDirectory()) throw new AppError('invalid_request', `${path} is a directory, not a feed file`);
  const totalBytes = info.size;
  const parser = new FeedParser(format, opts.column !== undefined ? { column: opts.column } : {});
  const stream = createReadStream(path, { encoding: 'utf8' });
  // crlfDelay: a "\r\n" split across chunks is still one line break
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const every = Math.max(1, opts.progressEvery ?? 2000);
  let lineNo = 0;
  for await (const line of lines) {
    parser.pushLine(line, ++lineNo);
    if (opts.onProgress && lineNo % every === 0) opts.onProgress(lineNo, stream.bytesRead, totalBytes);
  }
  opts.onProgress?.(lineNo, stream.bytesRead, totalBytes);
  return parser.result();
}
