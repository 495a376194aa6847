import { createConnection, createServer, type Socket } from 'node:net';
import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAppError } from '../../errors.ts';
import type { Logger } from '../../platform/log.ts';
import { currentOwner } from '../../platform/db/embedded-lock.ts';

/**
 * A Unix socket inside DATA_DIR through which operator commands reach the server that owns
 * the embedded database (PGlite allows one process per data directory). Only the owner of
 * DATA_DIR can connect (mode 0600). One JSON request line, one JSON response line.
 */
export function socketPath(dataDir: string) {
  return path.join(dataDir, 'admin.sock');
}
export type AdminServer = { close(): Promise<void> };
export type AdminReply = {
  ok: boolean;
  result?: unknown;
  error?: string;
  message?: string;
  body?: AsyncIterable<Buffer>;
};

/**
 * A command's answer that carries bytes (a backup): its reply line says `"body":true` and the bytes follow it
 * until the connection ends. The receiver checks what it got (a backup is read back whole before it is kept).
 */
export class BodyReply {
  constructor(
    readonly result: unknown,
    readonly body: AsyncIterable<Uint8Array>,
  ) {}
}

async function sendBody(socket: Socket, reply: BodyReply): Promise<void> {
  socket.write(`${JSON.stringify({ ok: true, result: reply.result, body: true })}\n`);
  for await (const chunk of reply.body) {
    if (socket.destroyed) return;
    if (!socket.write(chunk))
      await new Promise((resolve) => {
        socket.once('drain', resolve);
        socket.once('close', resolve);
      });
  }
  socket.end();
}
type Run = (command: string, args: Record<string, unknown>) => Promise<unknown>;

export async function serveAdmin(dataDir: string, run: Run, log: Logger): Promise<AdminServer> {
  const file = socketPath(dataDir);
  rmSync(file, { force: true }); // a stale socket of a dead owner (we hold the ownership lock)
  const server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', async (chunk) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline < 0) return;
      let reply: unknown;
      try {
        const { command, args } = JSON.parse(buffer.slice(0, newline)) as {
          command: string;
          args: Record<string, unknown>;
        };
        const result = await run(command, args);
        if (result instanceof BodyReply) {
          // A failure midway cuts the connection: the receiver sees the bytes end early and keeps nothing.
          await sendBody(socket, result).catch((e) => {
            log.error('admin command failed', { err: String(e) });
            socket.destroy();
          });
          return;
        }
        reply = { ok: true, result };
      } catch (e) {
        if (!isAppError(e)) log.error('admin command failed', { err: e });
        reply = { ok: false, error: isAppError(e) ? e.code : 'internal_error', message: (e as Error).message };
      }
      socket.end(`${JSON.stringify(reply)}\n`);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, resolve);
  });
  chmodSync(file, 0o600);
  return {
    close: () =>
      new Promise((resolve) =>
        server.close(() => {
          rmSync(file, { force: true });
          resolve();
        }),
      ),
  };
}

export async function callAdmin(dataDir: string, command: string, args: Record<string, unknown>): Promise<AdminReply> {
  const socket = createConnection(socketPath(dataDir));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(`${JSON.stringify({ command, args })}\n`);
  const chunks = socket[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let head = Buffer.alloc(0);
  let newline = -1;
  while (newline < 0) {
    const next = await chunks.next();
    if (next.done) break;
    head = Buffer.concat([head, next.value]);
    newline = head.indexOf(10);
  }
  if (newline < 0) throw new Error(`the server closed ${socketPath(dataDir)} without an answer`);
  const reply = JSON.parse(head.subarray(0, newline).toString('utf8')) as AdminReply;
  const rest = head.subarray(newline + 1);
  if ((reply as { body?: unknown }).body !== true) {
    socket.destroy();
    return reply;
  }
  return {
    ...reply,
    body: (async function* () {
      if (rest.length) yield rest;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    })(),
  };
}

/** Connect errors that mean nothing listens on the socket yet: the command was never sent, so trying again is safe. */
const NOT_LISTENING = new Set(['ENOENT', 'ECONNREFUSED']);

/**
 * Runs the command inside the process that owns DATA_DIR, or answers null when no process owns it (the caller
 * then opens the database itself). A server holds DATA_DIR from the moment it opens its database, seconds
 * before its socket listens (migrations, the network data, the publication): meanwhile this waits, up to
 * `timeoutMs`, for the socket to answer or the owner to go away, and says once that it waits.
 */
export async function callOwner(
  dataDir: string,
  command: string,
  args: Record<string, unknown>,
  opts: { timeoutMs: number; onWait: () => void },
): Promise<AdminReply | null> {
  const deadline = Date.now() + opts.timeoutMs;
  let told = false;
  for (;;) {
    const owner = currentOwner(dataDir);
    if (owner === null) return null;
    try {
      return await callAdmin(dataDir, command, args);
    } catch (e) {
      if (!NOT_LISTENING.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
    }
    if (Date.now() >= deadline) {
      throw Object.assign(
        new Error(
          `process ${owner} holds ${dataDir}, and no server answered on ${socketPath(dataDir)} within ${opts.timeoutMs / 1000} s`,
        ),
        { code: 'server_not_ready' },
      );
    }
    if (!told) {
      opts.onWait();
      told = true;
    }
    await sleep(100);
  }
}
