import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsController } from './events.controller.js';
import { EVENTS_ENTITIES } from './events.entities.js';
import { EventsService } from './events.service.js';
import { EventOutbox } from './outbox.js';
import { EventSequencer } from './sequencer.js';
import { WebhookService } from './webhooks.service.js';

/** The outbox (recorded by the catalog and inventory services in their transactions), the sequencer, GET /Events and the webhook subscriptions. */
@Module({
  imports: [TypeOrmModule.forFeature(EVENTS_ENTITIES)],
  controllers: [EventsController],
  providers: [EventOutbox, EventSequencer, EventsService, WebhookService],
  exports: [EventOutbox, EventSequencer, EventsService, WebhookService],
})
export class EventsModule {}
