import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { decimalTransformer } from '../quantity.js';

/*
 * The stock documents (EXTENSIONS "Every stock state the spec names"): what
 * an ERP already has for an order line going out and a purchase order line
 * coming in. While open, what is left on them is counted in their item's
 * stock_level row (committed and packed; onOrder and aSN), in the same
 * transaction as every change of them.
 */

export type DocumentState = 'open' | 'done' | 'cancelled';
export const DOCUMENT_STATES: readonly DocumentState[] = ['open', 'done', 'cancelled'];

/**
 * The columns every stock document's table starts with: its id, its item and
 * warehouse, the order line it is for (`reference`) and its units. Not an
 * entity: each document has its own table (allocation, expectation), with
 * these columns first and its own after them. (Each also has a state and its
 * times, declared in their places among its own columns, so that each
 * entity's columns keep the order of its table.)
 */
export abstract class StockDocument {
  @PrimaryGeneratedColumn({ type: 'int' })
  id: number;

  @Column({ type: 'int' })
  partNo: number;

  @Column({ type: 'int' })
  wID: number;

  @Column({ type: 'varchar', length: 64 })
  reference: string;

  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  units: number;
}

/**
 * An allocation: `units` of an item in one warehouse promised to an order
 * line (`reference`). What is left to ship is units − shipped, of which
 * `packed` is packed; the rest counts as committed.
 */
@Entity('allocation')
export class Allocation extends StockDocument {
  /** Packed and not shipped yet (an Issue against the allocation ships packed units first). */
  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  packed: number;

  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  shipped: number;

  @Column({ type: 'varchar', length: 16 })
  state: DocumentState;

  /** When the expiry cancels what is left unpacked, if still open; null: never. */
  @Column({ type: 'datetime', nullable: true })
  expiresAt: Date | null;

  @Column({ type: 'datetime' })
  created: Date;

  @Column({ type: 'datetime' })
  modified: Date;
}

export type ExpectationStage = 'ordered' | 'shipped';
export const EXPECTATION_STAGES: readonly ExpectationStage[] = ['ordered', 'shipped'];

/**
 * An expectation: `units` of an item expected in one warehouse for a
 * purchase order line (`reference`). What is left, units − received, counts
 * in onOrder while `ordered`, in aSN once `shipped`.
 */
@Entity('expectation')
export class Expectation extends StockDocument {
  /** Received against it so far (a receipt beyond what was left counts whole). */
  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  received: number;

  @Column({ type: 'varchar', length: 16 })
  stage: ExpectationStage;

  @Column({ type: 'varchar', length: 16 })
  state: DocumentState;

  @Column({ type: 'datetime', nullable: true })
  due: Date | null;

  @Column({ type: 'datetime' })
  created: Date;

  @Column({ type: 'datetime' })
  modified: Date;
}

export const DOCUMENT_ENTITIES = [Allocation, Expectation];
