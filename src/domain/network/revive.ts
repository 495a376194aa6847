/**
 * The network index is built in a worker thread (load-in-worker.ts) and crosses to the main thread
 * as a structured clone: own fields arrive intact (typed arrays, Maps, arrays, strings), class
 * prototypes do not. Each class of the index rebuilds itself with `revive`: a fresh instance of
 * the class holding the clone's fields, with `fields` replacing the ones that need more than a
 * prototype (nested class instances, build-time maps, a Buffer that arrived as a Uint8Array).
 */
export function revive<T extends object>(cls: { prototype: T }, clone: object, fields: Record<string, unknown> = {}): T {
  return Object.assign(Object.create(cls.prototype) as T, clone, fields);
}
