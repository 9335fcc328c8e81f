import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { caseKey } from '../database/case-key.js';
import { countsTotal } from '../database/counters.js';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { columnList, rows, toEntity } from '../database/statements.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { PageCursors } from '../pagination/cursor.js';
import { type JoinedRows, joinedStatement, MAX_PAGE_SIZE, paginate, type Page, type PageSpec, type SortIndexHints } from '../pagination/page.js';
import type { PageQuery } from '../pagination/page-request.js';
import { Item, ItemAlias } from './catalog.entities.js';

/** Sorting of both item lists (DECISIONS "Pagination"): shortID compares case-insensitively, like its uniqueness. */
export const ITEM_PAGES: PageSpec = {
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
  plainOrder: ['item.partNo', 'item.category', 'item.subCategory', 'item.created', 'item.modified'],
};

/**
 * GET /Item's SortIndexHints (paginate; active items only): for each sort, the
 * index that reads it in its order, `discontinued` first. Without them
 * MariaDB estimates `discontinued = 0` in each of the seven indexes that
 * start with it before every page. The names are the migrations'; the
 * query-plan spec reads every sort through them.
 */
export const ACTIVE_ITEM_PAGE_INDEXES = {
  'item.shortIdKey': 'IX_item_active_shortIdKey',
  'item.partNo': 'IX_item_active_partNo',
  'item.description': 'IX_item_active_description',
  'item.category': 'IX_item_active_category',
  'item.subCategory': 'IX_item_active_subCategory',
  'item.created': 'IX_item_active_created',
  'item.modified': 'IX_item_active_modified',
} as const satisfies SortIndexHints;

/** An item as it is created: every column but its partNo, which the insert gives it. */
export type NewItem = Omit<Item, 'partNo'>;

/** The item a piece of a category list starts after: its shortID key, then its partNo. */
export type CategoryPosition = Pick<Item, 'shortIdKey' | 'partNo'>;

/**
 * Every statement on the catalog's tables, `item` and `item_alias`: the
 * lists (where ListReads sends them), the point reads, and the writes of
 * create, update and alias:create.
 */
@Injectable()
export class ItemsRepository {
  constructor(
    @InjectRepository(Item) private readonly items: Repository<Item>,
    @InjectRepository(ItemAlias) private readonly aliases: Repository<ItemAlias>,
    private readonly tx: TransactionRunner,
    private readonly reads: ListReads,
    private readonly cursors: PageCursors,
  ) {}

  /**
   * A page of GET /Item (active only) or GET /Item/All. totalCount comes from
   * the item counters; with `modifiedSince` it is counted on the range of the
   * modified index.
   */
  page(query: PageQuery, includeDiscontinued: boolean, consistency: Consistency): Promise<Page<Item>> {
    return this.reads.run(consistency, async (m) => {
      const qb = m.createQueryBuilder(Item, 'item');
      if (!includeDiscontinued) qb.where('item.discontinued = 0');
      const scope = includeDiscontinued ? 'all' : 'active';
      const total = query.modifiedSince ? undefined : countsTotal('items', [scope]);
      const sortIndexes = includeDiscontinued ? undefined : ACTIVE_ITEM_PAGE_INDEXES;
      return paginate(m, qb, query, ITEM_PAGES, { total, cursors: this.cursors, filters: ['items', scope], joined: itemRows(m), sortIndexes });
    });
  }

  /**
   * A piece of a category's active items, by shortID key then partNo: one
   * short query on IX_item_category_active_shortIdKey, from the start or
   * after the item the last piece ended with. Each piece is a list read of
   * its own (ListReads): a replica that fails mid-list hands the next pieces
   * to the primary.
   */
  categoryPiece(category: number, after: CategoryPosition | undefined, limit: number, consistency: Consistency): Promise<Item[]> {
    return this.reads.run(consistency, (m) => {
      const qb = m
        .createQueryBuilder(Item, 'item')
        .where('item.category = :category AND item.discontinued = 0', { category })
        .orderBy('item.shortIdKey', 'ASC')
        .addOrderBy('item.partNo', 'ASC')
        .limit(limit);
      // The first conjunct is the index range; the second drops what was already sent.
      if (after) qb.andWhere('item.shortIdKey >= :key AND (item.shortIdKey > :key OR item.partNo > :partNo)', { key: after.shortIdKey, partNo: after.partNo });
      return qb.getMany();
    });
  }

  /** The item of this partNo, or null. */
  byPartNo(partNo: number): Promise<Item | null> {
    return this.one('partNo', partNo);
  }

  /** The item of this shortID, regardless of case (its unique shortID key), or null. */
  byShortId(shortId: string): Promise<Item | null> {
    return this.one('shortIdKey', caseKey(shortId));
  }

  /** The item an alias points to, regardless of the alias's case, or null. */
  async byAlias(alias: string): Promise<Item | null> {
    const found = await this.aliases.findOneBy({ aliasKey: caseKey(alias) });
    return found && (await this.items.findOneBy({ partNo: found.partNo }));
  }

  /** The item with this key (its primary or its unique shortID key): the point read every lookup of one item is, as a plain statement. */
  private async one(key: 'partNo' | 'shortIdKey', value: number | string): Promise<Item | null> {
    const m = this.items.manager;
    const [row] = await rows(m, `SELECT ${columnList(m, Item)} FROM item WHERE ${key} = ?`, [value]);
    return row ? toEntity(m, Item, row) : null;
  }

  /** Inserts the item in the transaction; returns it with its partNo. A taken shortID fails as a unique violation. */
  async insert(ctx: TransactionContext, values: NewItem): Promise<Item> {
    const item = this.items.create(values);
    await ctx.manager.insert(Item, item);
    return item;
  }

  /** Sets these columns of the item, in the transaction. */
  async update(ctx: TransactionContext, partNo: number, set: Partial<Item>): Promise<void> {
    await ctx.manager.update(Item, { partNo }, set);
  }

  /**
   * Sets these columns of the item only while its `discontinued` is still
   * `was`, in the transaction; whether it matched (a concurrent update that
   * flipped the flag first leaves this one matching no row).
   */
  async updateIfDiscontinued(ctx: TransactionContext, partNo: number, was: boolean, set: Partial<Item>): Promise<boolean> {
    const result = await ctx.manager.update(Item, { partNo, discontinued: was }, set);
    return Boolean(result.affected);
  }

  /** The item as the transaction sees it (it must exist). */
  read(ctx: TransactionContext, partNo: number): Promise<Item> {
    return ctx.manager.findOneByOrFail(Item, { partNo });
  }

  /** Inserts an alias of the item, as a write of its own (TransactionRunner.alone). A taken alias fails as a unique violation. */
  async insertAlias(alias: string, partNo: number, created: Date): Promise<void> {
    await this.tx.alone((m) => m.insert(ItemAlias, { alias, aliasKey: alias, partNo, created }));
  }
}

/**
 * The items of a page read with its keys (paginate's JoinedRows): the keys'
 * statement joined to `item` by primary key, one statement. A second
 * statement for the rows would repeat the list's filter on a list of keys,
 * which MariaDB plans against every index of the filter (at 100,000 items it
 * cost more than the keys and the join together), and would read the rows at
 * another moment than their keys.
 */
function itemRows(m: EntityManager): JoinedRows<Item> {
  const q = (name: string) => m.connection.driver.escape(name);
  return {
    statement: (keys, value) => joinedStatement(m, keys, value, columnList(m, Item, 'item'), `JOIN ${q('item')} item ON item.${q('partNo')} = k.k`),
    row: (row) => toEntity(m, Item, row),
  };
}
