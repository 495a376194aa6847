/** Typed arrays that grow as they fill (columns held outside the JavaScript heap, no object per element). */
export type GrowableArray = Float64Array | Uint32Array | Uint16Array | Uint8Array | Int32Array | Int8Array;

/** `a` with room for `need` elements: the same array, or a copy half as large again (or `need`, if larger). */
export function withRoom<T extends GrowableArray>(a: T, need: number): T {
  if (need <= a.length) return a;
  const grown = new (a.constructor as new (n: number) => T)(Math.max(need, Math.ceil(a.length * 1.5)));
  grown.set(a);
  return grown;
}
