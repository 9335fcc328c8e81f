import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, type Repository } from 'typeorm';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { IdempotencyRecord } from './idempotency.entity.js';

/** Which record: a client's key (its hash). */
export interface RecordKey {
  clientId: string;
  keyHash: string;
}

/**
 * Every statement on `idempotency_record`. Claims, their release and the
 * purge are writes of their own (TransactionRunner.alone), seen by a
 * concurrent request with the same key at once; the stored answer is written
 * in the change's transaction.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(
    @InjectRepository(IdempotencyRecord) private readonly records: Repository<IdempotencyRecord>,
    private readonly tx: TransactionRunner,
  ) {}

  /** Inserts a `pending` record claimed at `created`; a key already recorded fails as a unique violation. */
  async claim(key: RecordKey, requestHash: string, created: Date): Promise<void> {
    await this.tx.alone((m) => m.insert(IdempotencyRecord, { clientId: key.clientId, keyHash: key.keyHash, requestHash, state: 'pending', status: null, body: null, created }));
  }

  /** The record of this key, or null. */
  find(key: RecordKey): Promise<IdempotencyRecord | null> {
    return this.records.findOneBy({ clientId: key.clientId, keyHash: key.keyHash });
  }

  /** Deletes the record of this key claimed at `created` (none other), in a write of its own. */
  async delete(key: RecordKey, created: Date): Promise<void> {
    await this.tx.alone((m) => m.delete(IdempotencyRecord, { clientId: key.clientId, keyHash: key.keyHash, created }));
  }

  /** Deletes the record of this key while it is still `pending` from the claim made at `created`, in a write of its own. */
  async deletePending(key: RecordKey, created: Date): Promise<void> {
    await this.tx.alone((m) => m.delete(IdempotencyRecord, { clientId: key.clientId, keyHash: key.keyHash, state: 'pending', created }));
  }

  /**
   * Turns the `pending` record claimed at `claimed` `done` with the stored
   * answer, in the change's transaction; whether it matched (a claim left
   * pending too long may have been taken over by a retry of the request).
   */
  async complete(ctx: TransactionContext, key: RecordKey, claimed: Date, status: number, body: string): Promise<boolean> {
    const result = await ctx.manager.update(IdempotencyRecord, { clientId: key.clientId, keyHash: key.keyHash, state: 'pending', created: claimed }, { state: 'done', status, body });
    return result.affected === 1;
  }

  /** Deletes the records created before `before`, in a write of its own. */
  async deleteOlderThan(before: Date): Promise<void> {
    await this.tx.alone((m) => m.delete(IdempotencyRecord, { created: LessThan(before) }));
  }
}
