import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { PageCursors } from '../pagination/cursor.js';
import { CATALOG_ENTITIES } from './catalog.entities.js';
import { ItemLocksRepository } from './item-locks.repository.js';
import { ItemsController } from './items.controller.js';
import { ItemsRepository } from './items.repository.js';
import { ItemsService } from './items.service.js';

@Module({
  imports: [TypeOrmModule.forFeature(CATALOG_ENTITIES), IdempotencyModule, EventsModule],
  controllers: [ItemsController],
  providers: [ItemsService, ItemsRepository, ItemLocksRepository, PageCursors],
  exports: [ItemsService, ItemLocksRepository],
})
export class CatalogModule {}
