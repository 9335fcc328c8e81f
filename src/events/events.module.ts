import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../auth/accounts.module.js';
import { EventRecorder } from '../event-contract.js';
import { EventsController } from './events.controller.js';
import { EVENTS_ENTITIES } from './events.entities.js';
import { EventsService } from './events.service.js';
import { FeedRepository } from './feed.repository.js';
import { EventOutbox } from './outbox.js';
import { OutboxRepository } from './outbox.repository.js';
import { EventSequencer } from './sequencer.js';
import { SequencerRepository } from './sequencer.repository.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhookService } from './webhooks.service.js';

/**
 * The outbox, provided as the contract's EventRecorder (through which the
 * catalog and inventory services record their changes' events in their
 * transactions), the sequencer, GET /Events and the webhook subscriptions,
 * with the repositories of events' tables (the relay's module uses them too).
 * Auth's accounts: `webhook:create` checks the client.
 */
@Module({
  imports: [TypeOrmModule.forFeature(EVENTS_ENTITIES), AccountsModule],
  controllers: [EventsController],
  providers: [
    EventOutbox,
    { provide: EventRecorder, useFactory: recorder, inject: [EventOutbox] },
    EventSequencer,
    EventsService,
    WebhookService,
    FeedRepository,
    OutboxRepository,
    SequencerRepository,
    WebhooksRepository,
  ],
  exports: [EventOutbox, EventRecorder, EventSequencer, EventsService, WebhookService, SequencerRepository, WebhooksRepository],
})
export class EventsModule {}

/** The outbox as the contract's recorder (tsc checks that it is one). */
function recorder(outbox: EventOutbox): EventRecorder {
  return outbox;
}
