import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, In, type Repository } from 'typeorm';
import { caseKey } from '../database/case-key.js';
import { rows } from '../database/statements.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { Item } from './catalog.entities.js';

/** An item as inventory names it in a ledger page: its keys and description. */
export type ItemNames = Pick<Item, 'partNo' | 'shortID' | 'description'>;

/**
 * The statements on the item row that inventory needs: the item locks that
 * start its lock order (src/inventory/locks.repository.ts writes the order
 * out), and the reads of an item's keys by an operation that does not lock
 * it, by a batch's checks and by inventory's lists. In a transaction they run
 * on its manager (`ctx.manager`); a list's reads on the manager its
 * ListReads.run gave; the rest on TransactionRunner's reader (the open
 * unit's transaction, else the pool) or the primary.
 */
@Injectable()
export class ItemLocksRepository {
  constructor(
    private readonly tx: TransactionRunner,
    @InjectRepository(Item) private readonly items: Repository<Item>,
  ) {}

  /** The item named by `itemID` (case-folded shortID), locked; null when there is none. */
  lockItem(ctx: TransactionContext, itemID: string): Promise<Item | null> {
    return this.tx.forUpdate(ctx.manager.getRepository(Item).createQueryBuilder('item').where('item.shortIdKey = :key', { key: caseKey(itemID) })).getOne();
  }

  /** Locks the item row of `partNo` (before creating a stock_level row of it). */
  async lockItemRow(ctx: TransactionContext, partNo: number): Promise<void> {
    await this.tx.forUpdate(ctx.manager.getRepository(Item).createQueryBuilder('item').select('item.partNo').where('item.partNo = :partNo', { partNo })).getOne();
  }

  /**
   * Holds the item row of `partNo` in share mode: other writers that hold it
   * so go on, one that locks it (a Receive) waits for them, and they for it.
   */
  async shareItemRow(ctx: TransactionContext, partNo: number): Promise<void> {
    await rows(ctx.manager, `SELECT partNo FROM item WHERE partNo = ?${this.tx.shareClause}`, [partNo]);
  }

  /** Locks the item rows of these partNos, ascending (a batch's first lock); `partNos` not empty. */
  async lockItems(ctx: TransactionContext, partNos: number[]): Promise<void> {
    await this.tx.forUpdate(ctx.manager.getRepository(Item).createQueryBuilder('item').select('item.partNo').where('item.partNo IN (:...partNos)', { partNos }).orderBy('item.partNo', 'ASC')).getMany();
  }

  /** The keys of the item whose folded shortID is `shortIdKey`, not locked, through TransactionRunner's reader; null when there is none. */
  async keysOf(shortIdKey: string): Promise<Pick<Item, 'partNo' | 'shortID'> | null> {
    const [row] = await rows(this.tx.reader, 'SELECT partNo, shortID FROM item WHERE shortIdKey = ?', [shortIdKey]);
    return row ? { partNo: Number(row.partNo), shortID: String(row.shortID) } : null;
  }

  /** The partNos of the items with these folded shortIDs, by folded shortID (those that exist), from the primary. */
  async partNosOf(shortIdKeys: string[]): Promise<Map<string, number>> {
    return new Map((await this.items.find({ where: { shortIdKey: In(shortIdKeys) }, select: { partNo: true, shortIdKey: true } })).map((item) => [item.shortIdKey, item.partNo]));
  }

  /** A list's item filter: the partNo of the item named by `shortId`, null when there is none, read through the list's manager. */
  async partNoOf(m: EntityManager, shortId: string): Promise<number | null> {
    return (await m.findOne(Item, { where: { shortIdKey: caseKey(shortId) }, select: { partNo: true } }))?.partNo ?? null;
  }

  /** The shortIDs of these items (a stock-level page's), by partNo, read through the list's manager. */
  async shortIds(m: EntityManager, partNos: number[]): Promise<Map<number, string>> {
    if (!partNos.length) return new Map();
    const found = await m.find(Item, { where: { partNo: In([...new Set(partNos)]) }, select: { partNo: true, shortID: true } });
    return new Map(found.map((i) => [i.partNo, i.shortID]));
  }

  /** The keys and descriptions of these items (a ledger page's), by partNo, read through the list's manager. */
  async names(m: EntityManager, partNos: number[]): Promise<Map<number, ItemNames>> {
    if (!partNos.length) return new Map();
    const found = await m.find(Item, { where: { partNo: In([...new Set(partNos)]) }, select: { partNo: true, shortID: true, description: true } });
    return new Map(found.map((i) => [i.partNo, i]));
  }
}
