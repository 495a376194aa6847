/**
 * The network index is built in a worker thread (load-in-worker.ts) and crosses to the main thread
 * as a structured clone: own fields arrive intact (typed arrays, Maps, arrays, strings), class
 * prototypes do not. Each class of the index rebuilds itself with `revive`: a fresh instance of
 * the class holding the clone's fields, with `fields` replacing the ones that need more than a
 * prototype (nested class instances, build-time maps, a Buffer that arrived as a Uint8Array).
 */
export function revive<T extends object>(
  cls: { prototype: T },
  clone: object,
  fields: Record<string, unknown> = {},
): T {
  return Object.assign(Object.create(cls.prototype) as T, clone, fields);
}

/**
 * A structured clone copies a string each time it meets it, so names the builder shared (a country's name in
 * each of its places, an organisation's name as its brand) arrive as one copy per use. `one` gives back the
 * first copy of each text, so the rest can be dropped.
 */
export function sharedTexts(): (text: string) => string {
  const seen = new Map<string, string>();
  return (text) => {
    const known = seen.get(text);
    if (known !== undefined) return known;
    seen.set(text, text);
    return text;
  };
}
