import { createConnection, createServer } from 'node:net';
import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { isAppError } from '../errors.ts';
import type { Logger } from '../platform/log.ts';

/**
 * A Unix socket inside DATA_DIR through which operator commands reach the server that owns
 * the embedded database (PGlite allows one process per data directory). Only the owner of
 * DATA_DIR can connect (mode 0600). One JSON request line, one JSON response line.
 */
export function socketPath(dataDir: string) { return path.join(dataDir, 'admin.sock'); }
export type AdminServer = { close(): Promise<void> };
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
        const { command, args } = JSON.parse(buffer.slice(0, newline)) as { command: string; args: Record<string, unknown> };
        reply = { ok: true, result: await run(command, args) };
      } catch (e) {
        if (!isAppError(e)) log.error('admin command failed', { err: String(e) });
        reply = { ok: false, error: isAppError(e) ? e.code : 'internal_error', message: (e as Error).message };
      }
      socket.end(JSON.stringify(reply) + '\n');
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(file, resolve); });
  chmodSync(file, 0o600);
  return { close: () => new Promise((resolve) => server.close(() => { rmSync(file, { force: true }); resolve(); })) };
}

export function callAdmin(dataDir: string, command: string, args: Record<string, unknown>): Promise<{ ok: boolean; result?: unknown; error?: string; message?: string }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath(dataDir));
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(JSON.stringify({ command, args }) + '\n'));
    socket.on('data', (chunk) => { buffer += chunk; });
    socket.on('end', () => { try { resolve(JSON.parse(buffer)); } catch (e) { reject(e); } });
    socket.on('error', reject);
  });
}
