/**
 * PGlite (0.5.16) decodes every text value it reads with one `new TextDecoder('utf-8')`, which drops a
 * leading U+FEFF as a byte-order mark. A note or title starting with that character was stored whole but
 * read back one character short, and the rating batch, which matches stored rows to its callers by value,
 * then answered a committed write with 500 (found by the REST fuzz). PostgreSQL's driver keeps it.
 *
 * PGlite makes that decoder in its constructor, so `construct` builds it while `TextDecoder` keeps a leading
 * U+FEFF (`ignoreBOM: true`), then puts the global back. It runs synchronously: no other code can see the swap.
 * test/integration/text-roundtrip.test.ts fails if a PGlite upgrade makes its decoder elsewhere.
 */
export function withFaithfulTextDecoding<T>(construct: () => T): T {
  const Original = globalThis.TextDecoder;
  globalThis.TextDecoder = class FaithfulTextDecoder extends Original {
    constructor(label?: string, options?: TextDecoderOptions) {
      super(label, { ...options, ignoreBOM: true });
    }
  };
  try {
    return construct();
  } finally {
    globalThis.TextDecoder = Original;
  }
}
