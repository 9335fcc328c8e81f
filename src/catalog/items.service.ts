import { setImmediate } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import type { Caller } from '../auth/caller.js';
import { isUniqueViolation } from '../database/errors.js';
import type { Consistency } from '../database/list-reads.js';
import { TransactionRunner } from '../database/transactions.js';
import { Conflict, DomainError } from '../errors.js';
import { EventRecorder, type EventType } from '../event-contract.js';
import { shortIdProblem } from '../http/validators.js';
import type { Page } from '../pagination/page.js';
import type { PageQueryDto } from '../pagination/page-query.dto.js';
import type { Item } from './catalog.entities.js';
import { type CreateItemDto, itemChanges, type UpdateItemDto } from './item.dto.js';
import { toItemResponse } from './item.responses.js';
import { ItemsRepository, type NewItem } from './items.repository.js';

export class ItemNotFound extends DomainError {
  constructor(what: string) {
    super('not_found', `No item ${what}.`);
  }
}

/** A client's value quoted in a message, cut at 64 characters (the longest valid shortID). */
const quoted = (value: string) => `"${value.length > 64 ? `${value.slice(0, 64)}…` : value}"`;

export class DuplicateShortId extends Conflict {
  constructor(shortId: string) {
    super(`An item with shortID "${shortId}" already exists.`, { reason: 'duplicate_short_id', shortID: shortId });
  }
}

/** Only the admin CLI creates aliases (`alias:create`), which prints the message: no HTTP route answers it, so it names no 409 reason. */
export class DuplicateAlias extends DomainError {
  constructor(alias: string) {
    super('conflict', `The alias "${alias}" already exists.`);
  }
}

export class InvalidAlias extends DomainError {
  constructor(message: string) {
    super('validation_error', message, { alias: [message] });
  }
}

/** Rows per read of GET /Item?Category= (about 60 KB of JSON): what one such request holds in memory, and the most work it does between two turns of the event loop. */
export const CATEGORY_PIECE_ROWS = 200;

const ITEM_DEFAULTS = { description: '', category: 0, subCategory: 0, uOM: 'EA', putUp: '', units: 1, dfltOwner: 0, discontinued: false };

@Injectable()
export class ItemsService {
  constructor(
    private readonly items: ItemsRepository,
    private readonly tx: TransactionRunner,
    private readonly outbox: EventRecorder,
  ) {}

  /** GET /Item (active only) and GET /Item/All, read where ListReads sends them. */
  list(query: PageQueryDto, includeDiscontinued: boolean, consistency: Consistency): Promise<Page<Item>> {
    return this.items.page(query, includeDiscontinued, consistency);
  }

  /**
   * GET /Item?Category=: the category's active items by shortID, complete and
   * unpaginated (DECISIONS "Items"), as pieces of at most `pieceRows` rows.
   * Resolves once the first piece is read, so a failure before the answer
   * starts is an ordinary error answer.
   *
   * Keyset pieces rather than a database cursor: each piece is one short query
   * on IX_item_category_active_shortIdKey (category, discontinued, shortIdKey,
   * then partNo), walked in order from where the last piece ended. No
   * connection is held while the client reads, so slow or vanished clients
   * cannot take the MySQL pool, and SQLite's single connection (busy for as
   * long as a cursor is open) stays free for other requests. The list is not
   * one snapshot: an item changed while it is sent appears as its piece read
   * it, never twice.
   */
  async inCategory(category: number, consistency: Consistency, pieceRows = CATEGORY_PIECE_ROWS): Promise<AsyncGenerator<Item[]>> {
    // Each piece is a list read of its own (ListReads): a replica that fails mid-list hands the next pieces to the primary.
    const piece = (after?: Item) => this.items.categoryPiece(category, after, pieceRows, consistency);
    const first = await piece();
    return (async function* () {
      for (let rows = first; ; ) {
        yield rows;
        if (rows.length < pieceRows) return;
        // better-sqlite3 answers synchronously: let other requests (/health) in between pieces.
        await setImmediate();
        rows = await piece(rows[rows.length - 1]);
      }
    })();
  }

  /** By shortID, regardless of case; discontinued items included. */
  async byShortId(shortId: string): Promise<Item> {
    const item = await this.items.byShortId(shortId);
    if (!item) throw new ItemNotFound(`with shortID ${quoted(shortId)}`);
    return item;
  }

  async byAlias(alias: string): Promise<Item> {
    const item = await this.items.byAlias(alias);
    if (!item) throw new ItemNotFound(`with alias ${quoted(alias)}`);
    return item;
  }

  /** GET /Item/<partNo>: anything but a positive whole number is simply not found. */
  async byPartNo(raw: string): Promise<Item> {
    const partNo = /^\d{1,10}$/.test(raw) ? Number(raw) : 0;
    const item = partNo >= 1 && partNo <= 2_147_483_647 ? await this.items.byPartNo(partNo) : null;
    if (!item) throw new ItemNotFound(`with partNo ${raw.slice(0, 20)}`);
    return item;
  }

  /** POST /Item: the new item, with its partNo. */
  async create(caller: Caller, dto: CreateItemDto): Promise<Item> {
    const now = new Date();
    const values: NewItem = {
      ...ITEM_DEFAULTS,
      ...itemChanges(dto),
      shortID: dto.shortID,
      shortIdKey: dto.shortID,
      created: now,
      modified: now,
      createdBy: caller.name,
    };
    try {
      return await this.tx.run(async (ctx) => {
        const item = await this.items.insert(ctx, values);
        ctx.counts.add([{ list: 'items', scope: 'all', by: 1 }, ...(item.discontinued ? [] : [{ list: 'items', scope: 'active', by: 1 }])]);
        this.outbox.record(ctx, { type: 'item.created', json: JSON.stringify(toItemResponse(item)) });
        return item;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateShortId(dto.shortID);
      throw error;
    }
  }

  /**
   * PUT /Item: only the fields sent change; `modified` moves only when
   * something did. The event (item.discontinued for the update that
   * discontinues it, else item.updated) carries the item as the transaction
   * leaves it.
   */
  async update(dto: UpdateItemDto): Promise<Item> {
    const item = await this.byShortId(dto.shortID);
    const changes = itemChanges(dto);
    const changed = (Object.keys(changes) as Array<keyof Item>).filter((k) => changes[k] !== item[k]);
    if (changed.length) {
      const set = { ...Object.fromEntries(changed.map((k) => [k, changes[k]])), modified: new Date() } as Partial<Item>;
      const after = await this.tx.run(async (ctx) => {
        let type: EventType = 'item.updated';
        if (set.discontinued === undefined) await this.items.update(ctx, item.partNo, set);
        else {
          // Counted only by the update that flips the flag: a concurrent one that flipped it first matches no row here.
          if (await this.items.updateIfDiscontinued(ctx, item.partNo, !set.discontinued, set)) {
            ctx.counts.add([{ list: 'items', scope: 'active', by: set.discontinued ? -1 : 1 }]);
            if (set.discontinued) type = 'item.discontinued';
          } else await this.items.update(ctx, item.partNo, set);
        }
        const row = await this.items.read(ctx, item.partNo);
        this.outbox.record(ctx, { type, json: JSON.stringify(toItemResponse(row)) });
        return row;
      });
      Object.assign(item, after);
    }
    return item;
  }

  /** The delete route of an item (by its shortID): logical deletion, the same answer when repeated. */
  discontinue(shortId: string): Promise<Item> {
    return this.update({ shortID: shortId, discontinued: true });
  }

  /** Admin CLI alias:create. */
  async createAlias(shortId: string, alias: string): Promise<{ alias: string; shortID: string; partNo: number }> {
    const clean = alias ?? '';
    // The same rule as a shortID (DECISIONS "Items": aliases likewise).
    const problem = shortIdProblem(clean, 'alias');
    if (problem) throw new InvalidAlias(problem);
    const item = await this.byShortId(shortId);
    try {
      await this.items.insertAlias(clean, item.partNo, new Date());
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateAlias(clean);
      throw error;
    }
    return { alias: clean, shortID: item.shortID, partNo: item.partNo };
  }
}
