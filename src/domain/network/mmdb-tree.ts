/**
 * Direct access to a MaxMind DB search tree (format: MaxMind DB spec 2.0, records of 24, 28 or
 * 32 bits). The `maxmind` Reader decodes records; this walks the tree itself for two reasons:
 *   - at load, one pass over every leaf gives, per data record, the number of addresses that
 *     map to it (exact place/AS sizes), and each record is then decoded once by its pointer;
 *   - per request, a lookup returns the record pointer, which the index has already turned
 *     into small integers, so `resolve` decodes nothing.
 * An IPv6 database may hold IPv4 under ::/96 with aliases (::ffff:0:0/96, 2002::/16) pointing
 * at the same node; the IPv6 walk skips that node so IPv4 space is never counted as IPv6.
 */
import type { Reader, Response } from 'maxmind';
import type { Words } from './address-words.ts';
import { PointerTable } from './pointer-table.ts';
import { revive } from './revive.ts';

export class MmdbTree {
  private readonly nodeCount: number;
  private readonly recordSize: number;
  private readonly nodeBytes: number;
  readonly ipVersion: 4 | 6;
  private readonly ipv4Start: number;

  private db: Buffer;
  private reader: Reader<Response> | null;

  constructor(db: Buffer, reader: Reader<Response>) {
    this.db = db;
    this.reader = reader;
    const meta = reader.metadata;
    this.nodeCount = meta.nodeCount;
    this.recordSize = meta.recordSize;
    this.nodeBytes = meta.nodeByteSize;
    this.ipVersion = meta.ipVersion === 6 ? 6 : 4;
    if (![24, 28, 32].includes(this.recordSize)) throw new Error(`unsupported mmdb record size ${this.recordSize}`);
    let node = 0;
    if (this.ipVersion === 6) for (let i = 0; i < 96 && node < this.nodeCount; i++) node = this.record(node, 0);
    this.ipv4Start = node;
  }

  /** Left (bit 0) or right (bit 1) record of a node. */
  private record(node: number, bit: number): number {
    const b = this.db;
    const o = node * this.nodeBytes;
    if (this.recordSize === 24) {
      const p = o + bit * 3;
      return (b[p]! << 16) | (b[p + 1]! << 8) | b[p + 2]!;
    }
    if (this.recordSize === 28) {
      if (bit === 0) return (((b[o + 3]! & 0xf0) << 20) | (b[o]! << 16) | (b[o + 1]! << 8) | b[o + 2]!) >>> 0;
      return (((b[o + 3]! & 0x0f) << 24) | (b[o + 4]! << 16) | (b[o + 5]! << 8) | b[o + 6]!) >>> 0;
    }
    return b.readUInt32BE(o + bit * 4);
  }

  /** True when the tree can answer for this family at all. */
  covers(version: 4 | 6): boolean {
    return version === 6 ? this.ipVersion === 6 : this.ipVersion === 4 || this.ipv4Start < this.nodeCount;
  }

  /** Data pointer (> 0) for the address, or 0 when the tree has no data for it; plus the prefix length. */
  lookup(words: Words): { pointer: number; prefix: number } {
    const bits = words.length * 32;
    let node = words.length === 1 ? this.ipv4Start : 0;
    if (words.length === 4 && this.ipVersion === 4) return { pointer: 0, prefix: 0 };
    let depth = 0;
    for (; depth < bits && node < this.nodeCount; depth++) {
      node = this.record(node, (words[depth >>> 5]! >>> (31 - (depth & 31))) & 1);
    }
    return { pointer: node > this.nodeCount ? node : 0, prefix: depth };
  }

  /**
   * Addresses per data pointer, for one address family. An iterative depth-first walk over
   * explicit typed-array stacks: this runs over millions of nodes at start-up.
   */
  walk(version: 4 | 6): PointerTable {
    const table = new PointerTable();
    const root = version === 4 ? this.ipv4Start : 0;
    if (!this.covers(version) || root >= this.nodeCount) return table;
    const bits = version === 4 ? 32 : 128;
    const nodeCount = this.nodeCount;
    const skip = version === 6 ? this.ipv4Start : -1;
    const blockSize = Array.from({ length: bits + 1 }, (_, prefix) => 2 ** (bits - prefix));
    const stackValue = new Uint32Array(bits + 2);
    const stackDepth = new Uint8Array(bits + 2);
    let sp = 1;
    stackValue[0] = root;
    // Neighbouring leaves often share a record: sum a run locally, touch the table on change.
    let runPointer = 0;
    let runSize = 0;
    while (sp > 0) {
      sp--;
      const value = stackValue[sp]!;
      const depth = stackDepth[sp]!;
      if (value > nodeCount) {
        if (value === runPointer) {
          runSize += blockSize[depth]!;
          continue;
        }
        if (runPointer !== 0) table.add(runPointer, runSize);
        runPointer = value;
        runSize = blockSize[depth]!;
        continue;
      }
      if (value === nodeCount || value === skip || depth >= bits) continue;
      // expand: the right child takes this slot, the left child goes on top (visited first)
      stackValue[sp] = this.record(value, 1);
      stackDepth[sp] = depth + 1;
      stackValue[sp + 1] = this.record(value, 0);
      stackDepth[sp + 1] = depth + 1;
      sp += 2;
    }
    if (runPointer !== 0) table.add(runPointer, runSize);
    return table;
  }

  /**
   * Decode one data record by its pointer (used once per distinct record at load). The Reader's
   * resolveDataPointer is what its own get() calls after the tree descent; calling it directly
   * skips formatting the address as text, parsing it back and descending the tree again.
   */
  decode<T>(pointer: number): T | null {
    if (this.reader === null) throw new Error('mmdb records were released after loading');
    return (this.reader as unknown as { resolveDataPointer(pointer: number): unknown }).resolveDataPointer(
      pointer,
    ) as T | null;
  }

  /**
   * After load every record has been turned into ids, so keep only the search tree: this drops
   * the data section and the Reader (about a fifth of the packaged city files).
   */
  releaseRecords(): void {
    if (this.reader === null) return;
    const treeBytes = this.reader.metadata.searchTreeSize;
    this.db = Buffer.from(this.db.subarray(0, treeBytes));
    this.reader = null;
  }

  /** A released tree from a worker's clone: its search tree arrived as a Uint8Array over the same bytes. */
  static revive(clone: MmdbTree): MmdbTree {
    if (clone.reader !== null) throw new Error('only a tree whose records were released can cross threads');
    return revive(MmdbTree, clone, { db: Buffer.from(clone.db.buffer, clone.db.byteOffset, clone.db.byteLength) });
  }
}
