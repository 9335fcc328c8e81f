import type { Item } from '../catalog/catalog.entities.js';
import { addDecimal, DECIMAL_MAX, fromTenThousandths, storedTenThousandths, withinDecimalMax } from '../quantity.js';
import { Conflict } from '../errors.js';
import type { CountDto, HoldDto, IssueDto, MoveDto, ReceiveDto } from './inventory.dto.js';
import type { LedgerEntry, Lot, StockLevel } from './inventory.entities.js';

/*
 * What a change writes, decided before it is written (the statements are
 * StockChangesRepository's, stock-changes.repository.ts): the bound of a
 * stock level, the lots a plan took, the ledger rows and the fields every
 * ledger row of a request carries.
 */

/** DECISIONS "Inventory": an item's stock in one warehouse, and across all of them, stays within DECIMAL_MAX. */
export class StockLimitExceeded extends Conflict {
  constructor(shortId: string, wid: number | null) {
    super(`Stock of ${shortId} ${wid === null ? 'across all warehouses' : `in warehouse ${wid}`} would exceed ${DECIMAL_MAX} units.`, { reason: 'stock_bound', bound: DECIMAL_MAX });
  }
}

/** DECISIONS "Inventory": a discontinued item is not received (nor expected, nor counted up). */
export class ItemDiscontinued extends Conflict {
  constructor(shortId: string, what: 'received' | 'expected' | 'counted up' = 'received') {
    super(`Item ${shortId} is discontinued; it cannot be ${what}.`, { reason: 'item_discontinued', itemID: shortId });
  }
}

/** A lot taken by a plan: the lot it came from, the lot that holds the units now, the units. */
export interface TakenLot {
  from: Lot;
  recNo: number;
  units: number;
}

/** A locked stock_level row's figures once `inStock` and `onHold` are added; past DECIMAL_MAX → StockLimitExceeded. */
export function levelAdded(item: Pick<Item, 'shortID'>, level: StockLevel, inStock: number, onHold: number): Pick<LevelFigures, 'inStock' | 'onHold'> {
  if (!withinDecimalMax(storedTenThousandths(level.inStock), inStock)) throw new StockLimitExceeded(item.shortID, level.wID);
  return { inStock: addDecimal(level.inStock, inStock), onHold: addDecimal(level.onHold, onHold) };
}

export type LedgerRow = Pick<LedgerEntry, 'recNo' | 'fromRecNo' | 'fromWid' | 'fromSpot' | 'toWid' | 'toSpot' | 'units'>;

/** The ledger row of a lot taken: out of its lot, into `to` (a Move) or nowhere (an Issue). */
export function ledgerRow(t: TakenLot, to: { wid: number; spot: string } | null): LedgerRow {
  return { recNo: t.recNo, fromRecNo: t.from.recNo, fromWid: t.from.wID, fromSpot: t.from.spot, toWid: to?.wid ?? null, toSpot: to?.spot ?? null, units: t.units };
}

/** What every ledger row of one request carries besides its own lot and units. */
export type LedgerFields = Pick<LedgerEntry, 'clientId' | 'requestKey' | 'reasonCode' | 'reference' | 'remark' | 'extra'>;

/**
 * The ledger fields of a request: who made it, the key it was sent with (if
 * any), its reasonCode, reference and remark, and the body fields without a
 * column of their own (every field but itemID, wid and units) as the JSON
 * text of `extra`, null when there are none.
 */
export function ledgerFields(clientId: string, requestKey: string | null, dto: ReceiveDto | IssueDto | MoveDto | HoldDto | CountDto): LedgerFields {
  const { itemID: _i, wid: _w, units: _u, reference, ...rest } = dto as ReceiveDto & IssueDto & MoveDto & HoldDto & Partial<CountDto>;
  const { reasonCode, remark, ...extra } = rest;
  return { clientId, requestKey, reasonCode: reasonCode ?? null, reference: reference ?? '', remark: remark ?? '', extra: Object.keys(extra).length ? JSON.stringify(extra) : null };
}

/** A stock_level row's figures as read under its lock (StockLocksRepository). */
export interface LevelFigures {
  inStock: number;
  onHold: number;
  committed: number;
  packed: number;
  onOrder: number;
  aSN: number;
}

/** What a change adds to a locked stock_level row's figures (negative: takes), those it changes only. */
export type LevelDelta = Partial<LevelFigures>;

export const LEVEL_COLUMNS = ['inStock', 'onHold', 'committed', 'packed', 'onOrder', 'aSN'] as const satisfies ReadonlyArray<keyof LevelFigures>;

/** A row's figures once `delta` is added, exactly. */
export function withDelta(level: LevelFigures, delta: LevelDelta): LevelFigures {
  const after = { ...level };
  for (const column of LEVEL_COLUMNS) {
    if (delta[column] !== undefined) after[column] = fromTenThousandths(storedTenThousandths(level[column]) + storedTenThousandths(delta[column]));
  }
  return after;
}

/**
 * DECISIONS "Inventory": available = inStock − onHold − committed − packed,
 * exactly, as ten-thousandths (negative once a Count has found fewer units
 * than are allocated); 0 without a row.
 */
export function availableOf(level: LevelFigures | null): bigint {
  if (!level) return 0n;
  const exact = storedTenThousandths;
  return exact(level.inStock) - exact(level.onHold) - exact(level.committed) - exact(level.packed);
}
