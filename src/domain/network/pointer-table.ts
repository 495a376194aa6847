/**
 * Open-addressing hash table keyed by mmdb record pointers (unsigned 32-bit), in typed arrays.
 * A walk of the packaged IPv4 city tree makes ~2.5 million updates over ~116k distinct
 * pointers: a JS Map made that the slowest step of start-up; this is several times faster and
 * far smaller. Each slot also keeps an Int32 `tag` the owner of the table sets per slot (place
 * id, owner id) for request-time reads.
 */
import { revive } from './revive.ts';

export class PointerTable {
  private keys: Uint32Array;
  private sums: Float64Array;
  private tags: Int32Array;
  private mask: number;
  size = 0;

  constructor(capacity = 1 << 16) {
    this.keys = new Uint32Array(capacity);
    this.sums = new Float64Array(capacity);
    this.tags = new Int32Array(capacity).fill(-1);
    this.mask = capacity - 1;
  }

  /** Slot of a pointer, or -1. Pointers are never 0 (0 marks an empty slot). */
  slotOf(pointer: number): number {
    let slot = Math.imul(pointer, 0x9e3779b1) & this.mask;
    for (;;) {
      const key = this.keys[slot]!;
      if (key === pointer) return slot;
      if (key === 0) return -1;
      slot = (slot + 1) & this.mask;
    }
  }

  /** Add addresses to a pointer's sum. */
  add(pointer: number, addresses: number): void {
    let slot = Math.imul(pointer, 0x9e3779b1) & this.mask;
    for (;;) {
      const key = this.keys[slot]!;
      if (key === pointer) {
        this.sums[slot] = this.sums[slot]! + addresses;
        return;
      }
      if (key === 0) break;
      slot = (slot + 1) & this.mask;
    }
    this.keys[slot] = pointer;
    this.sums[slot] = addresses;
    if (++this.size * 2 > this.keys.length) this.grow();
  }

  private grow(): void {
    const { keys, sums, tags } = this;
    const capacity = keys.length * 2;
    this.keys = new Uint32Array(capacity);
    this.sums = new Float64Array(capacity);
    this.tags = new Int32Array(capacity).fill(-1);
    this.mask = capacity - 1;
    for (let old = 0; old < keys.length; old++) {
      const pointer = keys[old]!;
      if (pointer === 0) continue;
      let slot = Math.imul(pointer, 0x9e3779b1) & this.mask;
      while (this.keys[slot] !== 0) slot = (slot + 1) & this.mask;
      this.keys[slot] = pointer;
      this.sums[slot] = sums[old]!;
      this.tags[slot] = tags[old]!;
    }
  }

  /** Visit every pointer with its address count and slot. */
  forEach(visit: (pointer: number, addresses: number, slot: number) => void): void {
    for (let slot = 0; slot < this.keys.length; slot++) {
      const pointer = this.keys[slot]!;
      if (pointer === 0) continue;
      visit(pointer, this.sums[slot]!, slot);
    }
  }

  setTag(slot: number, tag: number): void {
    this.tags[slot] = tag;
  }

  /** The tag set for a pointer, or -1. */
  tagOf(pointer: number): number {
    const slot = this.slotOf(pointer);
    return slot === -1 ? -1 : this.tags[slot]!;
  }

  static revive(clone: PointerTable): PointerTable {
    return revive(PointerTable, clone);
  }

  /** Drop the per-load column once tags are set: only keys and tags serve requests. */
  compact(): void {
    this.sums = new Float64Array(0);
  }
}
