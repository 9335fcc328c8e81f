import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { Warehouse } from '../auth/auth.entities.js';
import { TransactionRunner } from '../database/transactions.js';

/**
 * The one read inventory makes of auth's `warehouse` table: the names of
 * warehouses, for lot answers (WarehouseNames keeps them), through
 * TransactionRunner's reader (the open unit's transaction, else the pool).
 */
@Injectable()
export class WarehousesRepository {
  constructor(private readonly tx: TransactionRunner) {}

  /** The warehouses of these wIDs that exist, with their names. */
  named(wids: number[]): Promise<Array<Pick<Warehouse, 'wID' | 'name'>>> {
    return this.tx.reader.find(Warehouse, { where: { wID: In(wids) } });
  }
}
