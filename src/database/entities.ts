import { AUTH_ENTITIES } from '../auth/auth.entities.js';
import { CATALOG_ENTITIES } from '../catalog/catalog.entities.js';
import { INVENTORY_ENTITIES } from '../inventory/inventory.entities.js';

/**
 * Every entity of the service, in one list so that the service, the migration
 * runner and the TypeORM CLI see the same model. Feature modules add theirs here.
 */
export const ENTITIES: Array<new () => object> = [...AUTH_ENTITIES, ...CATALOG_ENTITIES, ...INVENTORY_ENTITIES];
