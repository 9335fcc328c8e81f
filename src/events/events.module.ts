import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsController } from './events.controller.js';
import { EVENTS_ENTITIES } from './events.entities.js';
import { EventsService } from './events.service.js';
import { EventOutbox } from './outbox.js';
import { EventSequencer } from './sequencer.js';

/** The outbox (recorded by the catalog and inventory services in their transactions), the sequencer, and GET /Events. */
@Module({
  imports: [TypeOrmModule.forFeature(EVENTS_ENTITIES)],
  controllers: [EventsController],
  providers: [EventOutbox, EventSequencer, EventsService],
  exports: [EventOutbox],
})
export class EventsModule {}
