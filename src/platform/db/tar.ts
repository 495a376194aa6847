/**
 * The part of the POSIX tar format (ustar) a backup needs: regular files and directories, names up to
 * 255 bytes (the `prefix` field), sizes up to 8 GiB (11 octal digits). A backup is an ordinary tar.gz, so an
 * operator can list or unpack it with `tar` as well as restore it with the CLI.
 */
const BLOCK = 512;
const END = Buffer.alloc(BLOCK * 2);
const MAX_OCTAL_SIZE = 0o77777777777;

export type TarEntry = { name: string; type: 'file' | 'directory'; mode: number; mtime: Date; size: number };

function writeOctal(block: Buffer, offset: number, length: number, value: number) {
  block.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'ascii');
}

/** The 512-byte header of one entry (uid/gid 0, no owner names: restore gives every file to its own user). */
export function tarHeader(entry: TarEntry): Buffer {
  const block = Buffer.alloc(BLOCK);
  const name = Buffer.from(
    entry.type === 'directory' && !entry.name.endsWith('/') ? `${entry.name}/` : entry.name,
    'utf8',
  );
  let prefix = Buffer.alloc(0);
  let rest = name;
  if (name.length > 100) {
    const slash = name.lastIndexOf('/', 155);
    if (slash <= 0 || name.length - slash - 1 > 100) throw new Error(`tar: name too long: ${entry.name}`);
    prefix = name.subarray(0, slash);
    rest = name.subarray(slash + 1);
  }
  if (entry.size > MAX_OCTAL_SIZE) throw new Error(`tar: ${entry.name} is larger than 8 GiB`);
  rest.copy(block, 0);
  writeOctal(block, 100, 8, entry.mode & 0o7777);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, entry.type === 'file' ? entry.size : 0);
  writeOctal(block, 136, 12, Math.max(0, Math.floor(entry.mtime.getTime() / 1000)));
  block.write(entry.type === 'file' ? '0' : '5', 156, 1, 'ascii');
  block.write('ustar\x0000', 257, 8, 'ascii');
  prefix.copy(block, 345);
  block.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return block;
}

/** Zero bytes that pad `size` bytes of data to a whole block. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The two zero blocks that end an archive. */
export const TAR_END = END;

function readString(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const nul = field.indexOf(0);
  return field.subarray(0, nul === -1 ? length : nul).toString('utf8');
}

function readOctal(block: Buffer, offset: number, length: number, what: string): number {
  const text = readString(block, offset, length).trim();
  if (!/^[0-7]*$/.test(text)) throw new Error(`not a tar archive (bad ${what} field)`);
  return text === '' ? 0 : parseInt(text, 8);
}

function parseHeader(block: Buffer): TarEntry {
  const stored = readOctal(block, 148, 8, 'checksum');
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  if (sum !== stored) throw new Error('not a tar archive, or a damaged one (header checksum mismatch)');
  const flag = String.fromCharCode(block[156]!);
  const type = flag === '0' || flag === '\0' ? 'file' : flag === '5' ? 'directory' : null;
  const prefix = readString(block, 345, 155);
  const name = (prefix ? `${prefix}/` : '') + readString(block, 0, 100);
  if (type === null)
    throw new Error(
      `tar entry "${name.slice(0, 100)}" is of type "${flag}"; a backup holds only files and directories`,
    );
  return {
    name: type === 'directory' ? name.replace(/\/+$/, '') : name,
    type,
    mode: readOctal(block, 100, 8, 'mode'),
    size: type === 'file' ? readOctal(block, 124, 12, 'size') : 0,
    mtime: new Date(readOctal(block, 136, 12, 'mtime') * 1000),
  };
}

/**
 * The entries of an archive read from `chunks`, each with its whole data (files of a database are at most
 * a WAL segment or a 1 GB table segment). Throws on a damaged header or an archive that ends early.
 */
export async function* readTar(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<{ entry: TarEntry; data: Buffer }> {
  const parts: Buffer[] = [];
  let have = 0;
  const take = (n: number): Buffer => {
    const all = parts.length === 1 ? parts[0]! : Buffer.concat(parts, have);
    parts.length = 0;
    if (all.length > n) parts.push(all.subarray(n));
    have = all.length - n;
    return all.subarray(0, n);
  };
  let current: TarEntry | null = null;
  let ended = false;
  // Read to the end of the source even after the archive's end, so a gzip stream underneath checks its CRC.
  for await (const chunk of chunks) {
    if (ended) continue;
    parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    have += chunk.length;
    for (;;) {
      if (current === null) {
        if (have < BLOCK) break;
        const block = take(BLOCK);
        if (block.every((b) => b === 0)) {
          ended = true;
          break;
        } // the end of the archive: what follows is padding
        current = parseHeader(block);
      }
      const padded = current.size + tarPadding(current.size).length;
      if (have < padded) break;
      const data = Buffer.from(take(padded).subarray(0, current.size));
      const entry = current;
      current = null;
      yield { entry, data };
    }
  }
  if (!ended) throw new Error('the archive ends early: the file is truncated');
}
