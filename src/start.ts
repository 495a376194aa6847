import { serve } from './main.ts';

/** The process `npm start` runs (bundled as dist/server/main.mjs; a forked worker runs it again). */
await serve();
