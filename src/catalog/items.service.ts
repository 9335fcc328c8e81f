import { setImmediate } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { Caller } from '../auth/caller.js';
import { caseKey } from '../database/case-key.js';
import { countsTotal } from '../database/counters.js';
import { isUniqueViolation } from '../database/errors.js';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { columnList, rows, toEntity } from '../database/statements.js';
import { TransactionRunner } from '../database/transactions.js';
import { Conflict, DomainError } from '../errors.js';
import { EventRecorder, type EventType } from '../event-contract.js';
import { shortIdProblem } from '../http/validators.js';
import { PageCursors } from '../pagination/cursor.js';
import { MAX_PAGE_SIZE, paginate, type Page, type PageSpec } from '../pagination/page.js';
import type { PageQueryDto } from '../pagination/page-query.dto.js';
import { Item, ItemAlias } from './catalog.entities.js';
import { type CreateItemDto, itemChanges, type UpdateItemDto } from './item.dto.js';
import { toItemResponse } from './item.responses.js';

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

/** Sorting of both item lists (DECISIONS "Pagination"): shortID compares case-insensitively, like its uniqueness. */
const ITEM_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: {
    shortID: 'item.shortIdKey',
    partNo: 'item.partNo',
    description: 'item.description',
    category: 'item.category',
    subCategory: 'item.subCategory',
    created: 'item.created',
    modified: 'item.modified',
  },
  defaultSort: { column: 'item.shortIdKey', direction: 'ASC' },
  tiebreak: 'item.partNo',
  modifiedColumn: 'item.modified',
  // Its unique index orders the list alone: with partNo after it, MariaDB would sort (extended keys leave unique indexes out).
  unique: ['item.shortIdKey'],
};

/** Rows per read of GET /Item?Category= (about 60 KB of JSON): what one such request holds in memory, and the most work it does between two turns of the event loop. */
export const CATEGORY_PIECE_ROWS = 200;

const ITEM_DEFAULTS = { description: '', category: 0, subCategory: 0, uOM: 'EA', putUp: '', units: 1, dfltOwner: 0, discontinued: false };

@Injectable()
export class ItemsService {
  constructor(
    @InjectRepository(Item) private readonly items: Repository<Item>,
    @InjectRepository(ItemAlias) private readonly aliases: Repository<ItemAlias>,
    private readonly tx: TransactionRunner,
    private readonly cursors: PageCursors,
    private readonly outbox: EventRecorder,
    private readonly reads: ListReads,
  ) {}

  /**
   * GET /Item (active only) and GET /Item/All. totalCount comes from the item
   * counters; with `modifiedSince` it is counted on the range of the modified index.
   */
  list(query: PageQueryDto, includeDiscontinued: boolean, consistency: Consistency): Promise<Page<Item>> {
    return this.reads.run(consistency, async (m) => {
      const qb = m.createQueryBuilder(Item, 'item');
      if (!includeDiscontinued) qb.where('item.discontinued = 0');
      const scope = includeDiscontinued ? 'all' : 'active';
      const total = query.modifiedSince ? undefined : countsTotal('items', [scope]);
      return paginate(qb, query, ITEM_PAGES, { total, cursors: this.cursors, filters: ['items', scope] });
    });
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
    const piece = (after?: Item) =>
      this.reads.run(consistency, (m) => {
        const qb = m
          .createQueryBuilder(Item, 'item')
          .where('item.category = :category AND item.discontinued = 0', { category })
          .orderBy('item.shortIdKey', 'ASC')
          .addOrderBy('item.partNo', 'ASC')
          .limit(pieceRows);
        // The first conjunct is the index range; the second drops what was already sent.
        if (after) qb.andWhere('item.shortIdKey >= :key AND (item.shortIdKey > :key OR item.partNo > :partNo)', { key: after.shortIdKey, partNo: after.partNo });
        return qb.getMany();
      });
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
    const item = await this.one('shortIdKey', caseKey(shortId));
    if (!item) throw new ItemNotFound(`with shortID ${quoted(shortId)}`);
    return item;
  }

  async byAlias(alias: string): Promise<Item> {
    const found = await this.aliases.findOneBy({ aliasKey: caseKey(alias) });
    const item = found && (await this.items.findOneBy({ partNo: found.partNo }));
    if (!item) throw new ItemNotFound(`with alias ${quoted(alias)}`);
    return item;
  }

  /** GET /Item/<partNo>: anything but a positive whole number is simply not found. */
  async byPartNo(raw: string): Promise<Item> {
    const partNo = /^\d{1,10}$/.test(raw) ? Number(raw) : 0;
    const item = partNo >= 1 && partNo <= 2_147_483_647 ? await this.one('partNo', partNo) : null;
    if (!item) throw new ItemNotFound(`with partNo ${raw.slice(0, 20)}`);
    return item;
  }

  /** The item with this key (its primary or its unique shortID key): the point read every lookup of one item is, as a plain statement. */
  private async one(key: 'partNo' | 'shortIdKey', value: number | string): Promise<Item | null> {
    const m = this.items.manager;
    const [row] = await rows(m, `SELECT ${columnList(m, Item)} FROM item WHERE ${key} = ?`, [value]);
    return row ? toEntity(m, Item, row) : null;
  }

  /** POST /Item: the new item, with its partNo. */
  async create(caller: Caller, dto: CreateItemDto): Promise<Item> {
    const now = new Date();
    const item = this.items.create({
      ...ITEM_DEFAULTS,
      ...itemChanges(dto),
      shortID: dto.shortID,
      shortIdKey: dto.shortID,
      created: now,
      modified: now,
      createdBy: caller.name,
    });
    try {
      await this.tx.run(async (m, ctx) => {
        await m.insert(Item, item);
        ctx.counts.add([{ list: 'items', scope: 'all', by: 1 }, ...(item.discontinued ? [] : [{ list: 'items', scope: 'active', by: 1 }])]);
        this.outbox.record(ctx, { type: 'item.created', json: JSON.stringify(toItemResponse(item)) });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateShortId(dto.shortID);
      throw error;
    }
    return item;
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
      const after = await this.tx.run(async (m, ctx) => {
        let type: EventType = 'item.updated';
        if (set.discontinued === undefined) await m.update(Item, { partNo: item.partNo }, set);
        else {
          // Counted only by the update that flips the flag: a concurrent one that flipped it first matches no row here.
          const flipped = await m.update(Item, { partNo: item.partNo, discontinued: !set.discontinued }, set);
          if (flipped.affected) {
            ctx.counts.add([{ list: 'items', scope: 'active', by: set.discontinued ? -1 : 1 }]);
            if (set.discontinued) type = 'item.discontinued';
          } else await m.update(Item, { partNo: item.partNo }, set);
        }
        const row = await m.findOneByOrFail(Item, { partNo: item.partNo });
        this.outbox.record(ctx, { type, json: JSON.stringify(toItemResponse(row)) });
        return row;
      });
      Object.assign(item, after);
    }
    return item;
  }

  /** DELETE /Item/<shortID>: logical deletion, the same answer when repeated. */
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
      await this.tx.alone((m) => m.insert(ItemAlias, { alias: clean, aliasKey: clean, partNo: item.partNo, created: new Date() }));
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateAlias(clean);
      throw error;
    }
    return { alias: clean, shortID: item.shortID, partNo: item.partNo };
  }
}
