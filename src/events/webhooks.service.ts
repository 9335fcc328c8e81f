import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AccountsRepository } from '../auth/accounts.repository.js';
import { AppConfig } from '../config/config.js';
import { TransactionRunner } from '../database/transactions.js';
import { eventTypes, TYPES_SYNTAX } from './events.dto.js';
import { EventSequencer } from './sequencer.js';
import { SequencerRepository } from './sequencer.repository.js';
import { checkedAddress, parseWebhookUrl, WebhookInputError } from './webhook-target.js';
import { WebhooksRepository } from './webhooks.repository.js';

/** `webhook:list`: a subscription without its secret. */
export interface WebhookSummary {
  id: number;
  clientId: string;
  url: string;
  types: string[] | null;
  created: string;
}

/** `webhook:deliveries`: one attempt (EXTENSIONS "Events"). */
export interface DeliverySummary {
  eventId: string;
  seq: number;
  attempt: number;
  status: number | null;
  error: string | null;
  attemptedAt: string;
  nextTry: string | null;
}

/** The most attempts `webhook:deliveries` lists (the newest). */
export const DELIVERIES_SHOWN = 1000;

/**
 * The admin CLI's webhook commands (EXTENSIONS "Events"). A subscription
 * starts at the feed's last seq once every event committed so far has one:
 * it receives exactly the events committed after its creation.
 */
@Injectable()
export class WebhookService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly sequence: SequencerRepository,
    private readonly accounts: AccountsRepository,
    private readonly tx: TransactionRunner,
    private readonly sequencer: EventSequencer,
    private readonly config: AppConfig,
  ) {}

  async create(options: { clientId: string; url: string; types?: string }): Promise<{ id: number; url: string; types: string[] | null; secret: string }> {
    const url = parseWebhookUrl(options.url.trim());
    const types = options.types === undefined ? null : parseTypes(options.types);
    await checkedAddress(url, this.config.webhookAllowPrivate);
    if (!(await this.accounts.clientExists(options.clientId))) {
      // As a JSON string: a client id given with a line break or other control character stays on the one line the CLI prints.
      throw new WebhookInputError(`unknown client ${JSON.stringify(options.clientId.slice(0, 64))}`);
    }
    // Events committed before now get their seqs first, so that the position read below is after all of them.
    await this.sequencer.claim();
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const id = await this.tx.run(async (ctx) => {
      const lastSeq = await this.sequence.lastSeq(ctx);
      return this.webhooks.insert(ctx, {
        clientId: options.clientId,
        url: url.href,
        types: types === null ? null : JSON.stringify(types),
        secret,
        createdSeq: lastSeq,
        afterSeq: lastSeq,
        attempt: 0,
        nextTry: null,
        leaseOwner: null,
        leaseUntil: null,
        created: new Date(),
      });
    });
    return { id, url: url.href, types, secret };
  }

  async list(clientId?: string): Promise<{ webhooks: WebhookSummary[] }> {
    const rows = await this.webhooks.list(clientId);
    return {
      webhooks: rows.map((s) => ({ id: s.id, clientId: s.clientId, url: s.url, types: s.types === null ? null : (JSON.parse(s.types) as string[]), created: s.created.toISOString() })),
    };
  }

  /** Deletes the subscription and its attempts; the relay stops at once (its next write finds no row). */
  async delete(rawId: string): Promise<{ id: number; deleted: true }> {
    const id = parseId(rawId);
    await this.tx.run(async (ctx) => {
      if (!(await this.webhooks.delete(ctx, id))) throw new WebhookInputError(`unknown webhook ${id}`);
    });
    return { id, deleted: true };
  }

  async deliveries(rawId: string): Promise<{ deliveries: DeliverySummary[] }> {
    const id = parseId(rawId);
    if (!(await this.webhooks.exists(id))) throw new WebhookInputError(`unknown webhook ${id}`);
    const rows = await this.webhooks.attempts(id, DELIVERIES_SHOWN);
    return {
      deliveries: rows.map((d) => ({
        eventId: d.eventId,
        seq: d.seq,
        attempt: d.attempt,
        status: d.status,
        error: d.error,
        attemptedAt: d.attemptedAt.toISOString(),
        nextTry: d.nextTry?.toISOString() ?? null,
      })),
    };
  }
}

/** `--types`: a comma list of event types and `<kind>.*`, kept as given. */
function parseTypes(raw: string): string[] {
  const names = raw.split(',').map((name) => name.trim());
  if (raw.length > 500 || eventTypes(raw) === null) {
    throw new WebhookInputError(`--types must be ${TYPES_SYNTAX}`);
  }
  return names;
}

function parseId(raw: string): number {
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw new WebhookInputError('--id must be a whole number, 1 or more');
  return Number(raw);
}
