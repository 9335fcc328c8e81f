/**
 * The service's entry (`npm start`, `npm run start:prod`, the image's CMD).
 * First Node's module compile cache (compile-cache.ts), then the service
 * itself (serve.ts), loaded only now so that its modules are compiled
 * through the cache: a static import would have loaded them before it.
 * Loading them is most of a start; a SIGTERM or SIGINT meanwhile is held
 * and handed to the service, which ends the start with status 0 rather
 * than being killed by the signal's default action.
 */
import './compile-cache.js';

const held: NodeJS.Signals[] = [];
const hold = (signal: NodeJS.Signals) => held.push(signal);
process.on('SIGTERM', hold);
process.on('SIGINT', hold);
const { serve } = await import('./serve.js');
// serve() installs its own handlers before it returns: the held ones come off after, leaving no moment without one.
const serving = serve(held[0]);
process.off('SIGTERM', hold);
process.off('SIGINT', hold);
await serving;
