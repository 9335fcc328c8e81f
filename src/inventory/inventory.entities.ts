import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { caseKeyTransformer } from '../database/case-key.js';
import { decimalTransformer } from '../quantity.js';
import { DOCUMENT_ENTITIES } from './documents.entities.js';

/** A lot (spec "Lot"): units of one item at one spot of one warehouse. In stock while active. */
@Entity('lot')
export class Lot {
  @PrimaryGeneratedColumn({ type: 'int' })
  recNo: number;

  @Column({ type: 'int' })
  partNo: number;

  /** The item's shortIdKey, copied (a shortID never changes) so that lots sort by shortID on an index of their own. */
  @Column({ type: 'varchar', length: 64, transformer: caseKeyTransformer })
  shortIdKey: string;

  @Column({ type: 'int' })
  wID: number;

  @Column({ type: 'varchar', length: 64 })
  spot: string;

  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  units: number;

  @Column({ type: 'datetime' })
  received: Date;

  @Column({ type: 'datetime', nullable: true })
  shipped: Date | null;

  @Column({ type: 'varchar', length: 64 })
  serial: string;

  @Column({ type: 'varchar', length: 64 })
  serial2: string;

  @Column({ type: 'varchar', length: 64 })
  rFIDTag: string;

  @Column({ type: 'varchar', length: 255 })
  remark: string;

  @Column({ type: 'boolean' })
  hold: boolean;

  @Column({ type: 'int' })
  jobID: number;

  @Column({ type: 'varchar', length: 100 })
  jobName: string;

  @Column({ type: 'varchar', length: 100 })
  associate: string;

  /** True while in stock; false once issued (then `shipped` is set). */
  @Column({ type: 'boolean' })
  active: boolean;

  // Receive details that the Lot reference does not show, kept with the lot.
  @Column({ type: 'decimal', precision: 18, scale: 4, nullable: true, transformer: decimalTransformer })
  netWeight: number | null;

  @Column({ type: 'decimal', precision: 18, scale: 4, nullable: true, transformer: decimalTransformer })
  grossWeight: number | null;

  @Column({ type: 'decimal', precision: 18, scale: 4, nullable: true, transformer: decimalTransformer })
  price: number | null;

  @Column({ type: 'datetime', nullable: true })
  expires: Date | null;

  @Column({ type: 'int', nullable: true })
  supplier: number | null;

  @Column({ type: 'int', nullable: true })
  poLine: number | null;

  @Column({ type: 'datetime' })
  modified: Date;
}

/**
 * One row per lot touched by a Receive, Move or Issue; never updated. Units go
 * out of (fromWid, fromSpot) and into (toWid, toSpot): a receive has no
 * "from", an issue no "to". Σ in − Σ out per item and warehouse is the stock.
 */
@Entity('ledger_entry')
export class LedgerEntry {
  @PrimaryGeneratedColumn({ type: 'int' })
  id: number;

  /** Groups the rows of one request. */
  @Column({ type: 'varchar', length: 36 })
  operationId: string;

  @Column({ type: 'varchar', length: 16 })
  operation: 'receive' | 'move' | 'issue' | 'hold' | 'release' | 'count';

  @Column({ type: 'int' })
  partNo: number;

  /** The lot that holds the units afterwards (the archived lot for an issue). */
  @Column({ type: 'int' })
  recNo: number;

  /** The lot the units came from; null for a receive. */
  @Column({ type: 'int', nullable: true })
  fromRecNo: number | null;

  @Column({ type: 'int', nullable: true })
  fromWid: number | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  fromSpot: string | null;

  @Column({ type: 'int', nullable: true })
  toWid: number | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  toSpot: string | null;

  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  units: number;

  @Column({ type: 'int', nullable: true })
  reasonCode: number | null;

  @Column({ type: 'varchar', length: 100 })
  reference: string;

  @Column({ type: 'varchar', length: 255 })
  remark: string;

  /** The other body fields of the request that have no column (JSON), e.g. transitSlip, shipto, prodID. */
  @Column({ type: 'text', nullable: true })
  extra: string | null;

  @Column({ type: 'varchar', length: 64 })
  clientId: string;

  /** The Idempotency-Key the change was requested with, to trace it to its request. */
  @Column({ name: 'idempotencyKey', type: 'varchar', length: 255, nullable: true })
  requestKey: string | null;

  @Column({ type: 'datetime' })
  created: Date;
}

/**
 * Per item × warehouse totals, kept in the same transaction as the lots and
 * the documents, so stock levels never scan lots. `available` (inStock −
 * onHold − committed − packed) is a generated column of the migrations, read
 * only by the service's own SQL.
 */
@Entity('stock_level')
export class StockLevel {
  @PrimaryColumn({ type: 'int' })
  partNo: number;

  @PrimaryColumn({ type: 'int' })
  wID: number;

  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  inStock: number;

  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  onHold: number;

  @Column({ type: 'datetime' })
  modified: Date;

  /** What is left to ship on open allocations, not packed (documents.entities.ts). */
  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  committed: number;

  /** Packed on open allocations, not shipped yet. */
  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  packed: number;

  /** What is left on open expectations still `ordered`. */
  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  onOrder: number;

  /** What is left on open expectations `shipped` (in transit). */
  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  aSN: number;
}

/** How many items have a stock_level row: per warehouse (scope = wID) and in any (scope = 0). See list-counts.ts. */
@Entity('stock_count')
export class StockCount {
  @PrimaryColumn({ type: 'int' })
  scope: number;

  @Column({ type: 'int' })
  items: number;
}

export const INVENTORY_ENTITIES = [Lot, LedgerEntry, StockLevel, StockCount, ...DOCUMENT_ENTITIES];
