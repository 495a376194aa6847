import fc from 'fast-check';

// A failed property's own message then carries the failed assertion (what came back), not only its
// `cause`: CI's summary and vitest's JSON report print the message alone.
fc.configureGlobal({ includeErrorInReport: true });
