/**
 * The service's entry (`npm start`, `npm run start:prod`, the image's CMD).
 * Before anything else is loaded, Node's module compile cache is turned on
 * (`module.enableCompileCache`, stable since Node 24.15): the V8 code of
 * every module the service loads is kept on disk and read back at the next
 * start instead of compiled again, which took a fifth of a start's CPU.
 * It lives in `node_modules/.cache/node-compile-cache` (NODE_COMPILE_CACHE
 * names another directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off); a
 * directory that cannot be written leaves it off and changes nothing else.
 * Then the service itself (serve.ts), which static imports here would have
 * loaded before the cache was on.
 */
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';

enableCompileCache(process.env.NODE_COMPILE_CACHE ? undefined : join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'node-compile-cache'));
await import('./serve.js');
