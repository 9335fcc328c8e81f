import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Warehouse } from '../auth/auth.entities.js';
import { Item } from '../catalog/catalog.entities.js';
import { IdempotencyInterceptor, IdempotencyService } from './idempotency.js';
import { InventoryController } from './inventory.controller.js';
import { INVENTORY_ENTITIES } from './inventory.entities.js';
import { InventoryQueries } from './inventory-queries.service.js';
import { InventoryService } from './inventory.service.js';

/** Idempotency is global: POST /Item (catalog) honours Idempotency-Key too. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([...INVENTORY_ENTITIES, Item, Warehouse])],
  controllers: [InventoryController],
  providers: [InventoryService, InventoryQueries, IdempotencyService, IdempotencyInterceptor],
  exports: [IdempotencyService, IdempotencyInterceptor],
})
export class InventoryModule {}
