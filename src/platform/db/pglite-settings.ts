/**
 * PGlite's buffer pool lives in its WebAssembly memory, which never shrinks: at PostgreSQL's default
 * of 128 MB it was the largest single cost of the embedded process (docs/decisions/0004-pglite-shared-buffers.md).
 * Its data files are ordinary files, so pages that do not fit stay in the operating system's cache: `score`
 * reads tables only on cache misses (a key not yet verified), and `db move` reads each page once.
 */
const PGLITE_SHARED_BUFFERS = '16MB';

/** The options every PGlite of the service is opened with (the server's, the CLI's, `db move`'s). */
export function pgliteSettings(defaultStartParams: string[]): { startParams: string[] } {
  return { startParams: [...defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`] };
}
