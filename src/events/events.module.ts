import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventRecorder } from '../event-contract.js';
import { EventsController } from './events.controller.js';
import { EVENTS_ENTITIES } from './events.entities.js';
import { EventsService } from './events.service.js';
import { EventOutbox } from './outbox.js';
import { EventSequencer } from './sequencer.js';
import { WebhookService } from './webhooks.service.js';

/**
 * The outbox, provided as the contract's EventRecorder (through which the
 * catalog and inventory services record their changes' events in their
 * transactions), the sequencer, GET /Events and the webhook subscriptions.
 */
@Module({
  imports: [TypeOrmModule.forFeature(EVENTS_ENTITIES)],
  controllers: [EventsController],
  providers: [EventOutbox, { provide: EventRecorder, useFactory: recorder, inject: [EventOutbox] }, EventSequencer, EventsService, WebhookService],
  exports: [EventOutbox, EventRecorder, EventSequencer, EventsService, WebhookService],
})
export class EventsModule {}

/** The outbox as the contract's recorder (tsc checks that it is one). */
function recorder(outbox: EventOutbox): EventRecorder {
  return outbox;
}
