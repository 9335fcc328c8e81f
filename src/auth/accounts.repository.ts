import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import { caseKey } from '../database/case-key.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { ClientWarehouse, IntegrationClient, PermissionGroup, Warehouse } from './auth.entities.js';

/** What `client:list` reads: every client, oldest first, every group, and every client's warehouses by wID. */
export interface ClientListing {
  clients: IntegrationClient[];
  groups: PermissionGroup[];
  scopes: ClientWarehouse[];
}

/**
 * Every statement on the accounts' tables: `integration_client`,
 * `permission_group`, `client_warehouse` and `warehouse` (the tokens are
 * TokensRepository's). The reads of a caller's account (AccessService), the
 * admin commands and the first start's bootstrap (AdminService), the
 * webhook commands' client check, and the names of warehouses for
 * inventory's lot answers (its WarehouseNames keeps them).
 */
@Injectable()
export class AccountsRepository {
  constructor(
    @InjectRepository(IntegrationClient) private readonly clients: Repository<IntegrationClient>,
    @InjectRepository(PermissionGroup) private readonly groups: Repository<PermissionGroup>,
    @InjectRepository(ClientWarehouse) private readonly scopes: Repository<ClientWarehouse>,
    private readonly tx: TransactionRunner,
  ) {}

  /** The client of this id, or null. */
  client(clientId: string): Promise<IntegrationClient | null> {
    return this.clients.findOneBy({ clientId });
  }

  /** Whether a client of this id exists. */
  clientExists(clientId: string): Promise<boolean> {
    return this.clients.existsBy({ clientId });
  }

  /** How many clients there are. */
  countClients(): Promise<number> {
    return this.clients.count();
  }

  /** The group of this id (it must exist). */
  group(id: number): Promise<PermissionGroup> {
    return this.groups.findOneByOrFail({ id });
  }

  /** The warehouses of a client's scope, ascending. */
  async warehousesOf(clientId: string): Promise<number[]> {
    const scope = await this.scopes.find({ where: { clientId }, order: { wID: 'ASC' } });
    return scope.map((s) => s.wID);
  }

  /** Everything `client:list` shows, read at once. */
  async clientListing(): Promise<ClientListing> {
    const [clients, groups, scopes] = await Promise.all([
      this.clients.find({ order: { created: 'ASC', clientId: 'ASC' } }),
      this.groups.find(),
      this.scopes.find({ order: { wID: 'ASC' } }),
    ]);
    return { clients, groups, scopes };
  }

  /**
   * The warehouses of these wIDs that exist, with their names, through
   * TransactionRunner's reader (the open unit's transaction, else the pool).
   */
  warehousesNamed(wids: number[]): Promise<Array<Pick<Warehouse, 'wID' | 'name'>>> {
    return this.tx.reader.find(Warehouse, { where: { wID: In(wids) } });
  }

  /** Whether warehouse `wID` exists, in the transaction. */
  warehouseExists(ctx: TransactionContext, wID: number): Promise<boolean> {
    return ctx.manager.existsBy(Warehouse, { wID });
  }

  /** Inserts a warehouse in the transaction; a taken name fails as a unique violation. */
  async insertWarehouse(ctx: TransactionContext, warehouse: Warehouse): Promise<void> {
    await ctx.manager.insert(Warehouse, warehouse);
  }

  /** The group of this name, regardless of case, in the transaction, or null. */
  groupNamed(ctx: TransactionContext, name: string): Promise<PermissionGroup | null> {
    return ctx.manager.findOneBy(PermissionGroup, { nameKey: caseKey(name) });
  }

  /** Inserts a group in the transaction; returns it with its id. A taken name fails as a unique violation. */
  async insertGroup(ctx: TransactionContext, values: Omit<PermissionGroup, 'id'>): Promise<PermissionGroup> {
    const group = ctx.manager.create(PermissionGroup, values);
    await ctx.manager.insert(PermissionGroup, group);
    return group;
  }

  /** Inserts a client and its warehouses (one statement each) in the transaction; a taken name fails as a unique violation. */
  async insertClient(ctx: TransactionContext, client: IntegrationClient, wids: number[]): Promise<void> {
    await ctx.manager.insert(IntegrationClient, client);
    if (wids.length) await ctx.manager.insert(ClientWarehouse, wids.map((wID) => ({ clientId: client.clientId, wID })));
  }

  /**
   * Enables or disables the client in the transaction; disabling moves its
   * token generation on (in SQL, from the row's own value). Whether the
   * client exists.
   */
  async setDisabled(ctx: TransactionContext, clientId: string, disabled: boolean, modified: Date): Promise<boolean> {
    const change = disabled ? { disabled, tokenGeneration: () => 'tokenGeneration + 1', modified } : { disabled, modified };
    const result = await ctx.manager.update(IntegrationClient, { clientId }, change);
    return Boolean(result.affected);
  }

  /** Sets the client's secret hash, as a write of its own (TransactionRunner.alone); whether the client exists. */
  async setSecret(clientId: string, secretHash: string, rotated: Date): Promise<boolean> {
    const result = await this.tx.alone((m) => m.update(IntegrationClient, { clientId }, { secretHash, secretRotated: rotated, modified: rotated }));
    return Boolean(result.affected);
  }
}
