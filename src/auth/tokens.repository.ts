import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, type Repository } from 'typeorm';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { AccessToken } from './auth.entities.js';

/** Every statement on `access_token`: tokens are stored as their hashes, read by them, and deleted when they can no longer be used. */
@Injectable()
export class TokensRepository {
  constructor(
    @InjectRepository(AccessToken) private readonly tokens: Repository<AccessToken>,
    private readonly tx: TransactionRunner,
  ) {}

  /** The token of this hash, or null. */
  byHash(tokenHash: string): Promise<AccessToken | null> {
    return this.tokens.findOneBy({ tokenHash });
  }

  /**
   * Stores a new token, as a write of its own (TransactionRunner.alone), and
   * deletes its client's tokens expired by the time it was issued: the table
   * keeps the tokens that can still be used.
   */
  async insert(token: AccessToken): Promise<void> {
    await this.tx.alone(async (m) => {
      await m.insert(AccessToken, token);
      await m.delete(AccessToken, { clientId: token.clientId, expires: LessThan(token.issued) });
    });
  }

  /** Deletes every token of the client, in the transaction (a disable revokes them all). */
  async deleteOfClient(ctx: TransactionContext, clientId: string): Promise<void> {
    await ctx.manager.delete(AccessToken, { clientId });
  }
}
