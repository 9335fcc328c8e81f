import { Conflict } from '../errors.js';
import type { PickPlan } from './pick.js';

/** EXTENSIONS "Warehouse operations": the most lots one batch touches, summed over its operations. */
export const MAX_BATCH_LOTS = 10_000;

/** A batch that would touch more lots than MAX_BATCH_LOTS (DECISIONS "Conflicts", reason `batch_too_large`). */
export class BatchTooLarge extends Conflict {
  constructor(limit: number) {
    super(`A batch touches at most ${limit} lots in all; this one would touch more.`, { reason: 'batch_too_large', limit });
  }
}

/**
 * The lots a batch may still touch. Each operation spends what its plan
 * touches before it writes anything, so a batch over the limit is refused
 * before the operation that passes it does its work, and its transaction
 * (everything done before) rolls back.
 */
export class LotBudget {
  private spent = 0;

  constructor(readonly limit: number = MAX_BATCH_LOTS) {}

  /** Lots that may still be touched. */
  get left(): number {
    return this.limit - this.spent;
  }

  spend(lots: number): void {
    if (lots > this.left) throw new BatchTooLarge(this.limit);
    this.spent += lots;
  }
}

/**
 * The lots a pick plan touches: each lot taken whole is changed (or
 * archived); the lot taken in part is split, which changes it and creates a
 * new lot: two.
 */
export function lotsTouched(plan: PickPlan<unknown>): number {
  return plan.whole.length + (plan.part ? 2 : 0);
}
