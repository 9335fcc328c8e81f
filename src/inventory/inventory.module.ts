import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../auth/accounts.module.js';
import { CatalogModule } from '../catalog/catalog.module.js';
import { EventsModule } from '../events/events.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { PageCursors } from '../pagination/cursor.js';
import { AllocationExpiry } from './allocation-expiry.js';
import { AllocationsController } from './allocations.controller.js';
import { AllocationsRepository } from './allocations.repository.js';
import { AllocationsService } from './allocations.service.js';
import { DocumentPagesRepository } from './document-pages.repository.js';
import { DocumentQueries } from './document-queries.service.js';
import { ExpectationsController } from './expectations.controller.js';
import { ExpectationsRepository } from './expectations.repository.js';
import { ExpectationsService } from './expectations.service.js';
import { InventoryController } from './inventory.controller.js';
import { INVENTORY_ENTITIES } from './inventory.entities.js';
import { InventoryPagesRepository } from './inventory-pages.repository.js';
import { InventoryQueries } from './inventory-queries.service.js';
import { BatchService } from './batch.service.js';
import { CountService } from './count.service.js';
import { InventoryService } from './inventory.service.js';
import { ItemKeyCache } from './item-keys.js';
import { StockLocksRepository } from './locks.repository.js';
import { StockChangesRepository } from './stock-changes.repository.js';
import { StockEvents } from './stock-events.js';
import { StockLevelPages } from './stock-level-pages.js';
import { StockLevelPagesRepository } from './stock-level-pages.repository.js';
import { WarehouseLists } from './warehouse-lists.js';
import { WarehouseNames } from './warehouse-names.js';

@Module({
  imports: [TypeOrmModule.forFeature(INVENTORY_ENTITIES), AccountsModule, IdempotencyModule, EventsModule, CatalogModule],
  // The documents' controllers first: InventoryController's GET :wid would otherwise take GET /Inventory/Allocations and /Expectations.
  controllers: [AllocationsController, ExpectationsController, InventoryController],
  providers: [
    InventoryService,
    AllocationsService,
    ExpectationsService,
    AllocationExpiry,
    DocumentQueries,
    DocumentPagesRepository,
    AllocationsRepository,
    ExpectationsRepository,
    CountService,
    BatchService,
    InventoryQueries,
    StockLevelPages,
    StockEvents,
    WarehouseNames,
    ItemKeyCache,
    PageCursors,
    StockLocksRepository,
    StockChangesRepository,
    WarehouseLists,
    InventoryPagesRepository,
    StockLevelPagesRepository,
  ],
})
export class InventoryModule {}
