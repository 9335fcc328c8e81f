import { Injectable } from '@nestjs/common';
import type { Item } from '../catalog/catalog.entities.js';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import { caseKey } from '../database/case-key.js';
import { ValidationFailed } from '../errors.js';

/** A referenced item that does not exist: validation_error on itemID (DECISIONS "Inventory"). */
export function unknownItem(itemID: string): ValidationFailed {
  return new ValidationFailed({ itemID: [`itemID "${itemID}" does not name an item`] });
}

/** What an operation needs of an item it does not lock: its keys. */
export type ItemKeys = Pick<Item, 'partNo' | 'shortID'>;

/**
 * How many items' keys are kept; the oldest read is dropped first. An entry
 * costs about 110 bytes of heap for a 13-character shortID (its folded key,
 * the map's slot, and one flat string `partNo,shortID`; an object per entry
 * would cost 175), so a full cache holds about 11 MB.
 */
export const MAX_KEPT = 100_000;

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
  /** Folded key → `partNo,shortID`, one flat string (see MAX_KEPT). */
  private readonly known = new Map<string, string>();

  constructor(private readonly items: ItemLocksRepository) {}

  async of(itemID: string): Promise<ItemKeys | null> {
    const key = caseKey(itemID);
    const kept = this.known.get(key);
    if (kept !== undefined) {
      const comma = kept.indexOf(',');
      return { partNo: Number(kept.slice(0, comma)), shortID: kept.slice(comma + 1) };
    }
    const keys: ItemKeys | null = await this.items.keysOf(key);
    if (!keys) return null;
    if (this.known.size >= MAX_KEPT) this.known.delete(this.known.keys().next().value as string);
    this.known.set(key, flat(`${keys.partNo},${keys.shortID}`));
    return keys;
  }

  /** How many items' keys are kept now. */
  get size(): number {
    return this.known.size;
  }
}

/**
 * The text as one sequential string. A template literal makes a cons string
 * (its parts and a node: 190 bytes an entry here instead of 110), and V8's
 * flattening of one keeps the node; a copy through a Buffer is flat.
 */
function flat(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
