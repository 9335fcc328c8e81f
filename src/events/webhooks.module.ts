import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { EventsModule } from './events.module.js';
import { WebhookRelay } from './webhook-relay.js';

/** The webhook relay of the service (the admin CLI manages subscriptions through EventsModule's WebhookService, without it). */
@Module({
  imports: [EventsModule, AuthModule],
  providers: [WebhookRelay],
})
export class WebhooksModule {}
