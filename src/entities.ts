import { AUTH_ENTITIES } from './auth/auth.entities.js';
import { CATALOG_ENTITIES } from './catalog/catalog.entities.js';
import { EVENTS_ENTITIES } from './events/events.entities.js';
import { IDEMPOTENCY_ENTITIES } from './idempotency/idempotency.entity.js';
import { INVENTORY_ENTITIES } from './inventory/inventory.entities.js';

/**
 * Every entity of the service, for the TypeORM CLI (ormconfig.ts). The service
 * itself loads the entities its modules register with `forFeature`
 * (`autoLoadEntities`); a new feature's entities go in its module and here.
 */
export const ENTITIES: Array<new () => object> = [...AUTH_ENTITIES, ...CATALOG_ENTITIES, ...INVENTORY_ENTITIES, ...IDEMPOTENCY_ENTITIES, ...EVENTS_ENTITIES];
