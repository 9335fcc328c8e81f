import { Injectable } from '@nestjs/common';
import { Item } from '../catalog/catalog.entities.js';
import { caseKey } from '../database/case-key.js';
import { rows } from '../database/statements.js';
import { TransactionRunner } from '../database/transactions.js';

/** What an operation needs of an item it does not lock: its keys. */
export type ItemKeys = Pick<Item, 'partNo' | 'shortID'>;

/** How many items' keys are kept; the oldest read is dropped first. */
const MAX_KEPT = 50_000;

/**
 * The keys of items named by `itemID` in Issue, Move, Hold and Release. An
 * item's partNo and shortID never change once it exists (PUT /Item names the
 * item by its shortID; nothing deletes one), so keys once read are kept;
 * only an item not seen yet costs a read. Unknown items are not kept: one
 * may be created at any moment. What can change (discontinued) is never
 * taken from here.
 */
@Injectable()
export class ItemKeyCache {
  private readonly known = new Map<string, ItemKeys>();

  constructor(private readonly tx: TransactionRunner) {}

  async of(itemID: string): Promise<ItemKeys | null> {
    const key = caseKey(itemID);
    const kept = this.known.get(key);
    if (kept) return kept;
    const [row] = await rows(this.tx.reader, 'SELECT partNo, shortID FROM item WHERE shortIdKey = ?', [key]);
    if (!row) return null;
    const keys: ItemKeys = { partNo: Number(row.partNo), shortID: String(row.shortID) };
    if (this.known.size >= MAX_KEPT) this.known.delete(this.known.keys().next().value as string);
    this.known.set(key, keys);
    return keys;
  }
}
