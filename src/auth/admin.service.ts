import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '../database/errors.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { AccountsRepository } from './accounts.repository.js';
import type { PermissionGroup } from './auth.entities.js';
import { hashCredential, newClientId, newSecret } from './credentials.js';
import { ALL_SECURITY_IDS, isSecurityId, type SecurityId } from './security-id.js';
import { TokensRepository } from './tokens.repository.js';

/** Bad input to an admin command; the CLI prints the message and exits non-zero. */
export class AdminInputError extends Error {}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** A client as `client:list` shows it: everything but its secret. */
export interface ClientSummary {
  clientId: string;
  name: string;
  group: string;
  permissions: SecurityId[];
  warehouses: number[];
  readOnly: boolean;
  disabled: boolean;
  created: string;
  secretRotated: string | null;
}

export interface BootstrapCredentials extends ClientCredentials {
  group: string;
  warehouses: number[];
}

const NAME = /^[^\p{Cc}]{1,64}$/u;

/**
 * What the admin CLI does (DECISIONS "Operating it"). Every command is one
 * transaction: on bad input nothing is written. Writes go through the
 * TransactionRunner, like inventory operations: on SQLite that is the one
 * writer connection with BEGIN IMMEDIATE, so a command (or the first start's
 * bootstrap) beside another process writing the same file waits for it
 * instead of failing with "database is locked" when its read turns into a write.
 */
@Injectable()
export class AdminService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly tokens: TokensRepository,
    private readonly tx: TransactionRunner,
  ) {}

  async createWarehouse(wID: number, name: string): Promise<{ wID: number; name: string }> {
    if (!Number.isSafeInteger(wID) || wID < 1 || wID > 2_147_483_647) throw new AdminInputError('--id must be a whole number from 1 to 2147483647');
    const clean = checkName(name, '--name', 100);
    await this.write('warehouse', async (ctx) => {
      if (await this.accounts.warehouseExists(ctx, wID)) throw new AdminInputError(`warehouse ${wID} already exists`);
      await this.accounts.insertWarehouse(ctx, { wID, name: clean, nameKey: clean, created: new Date() });
    });
    return { wID, name: clean };
  }

  async createGroup(name: string, permissionList: string): Promise<{ id: number; name: string; permissions: SecurityId[] }> {
    const clean = checkName(name, '--name', 64);
    const permissions = parseIdList(permissionList, '--permissions').map((id) => {
      if (!isSecurityId(id)) throw new AdminInputError(`unknown SecurityID ${id}; known: ${ALL_SECURITY_IDS.join(', ')}`);
      return id;
    });
    const group = await this.write('group', (ctx) => this.insertGroup(ctx, clean, permissions));
    return { id: group.id, name: group.name, permissions: group.permissions };
  }

  async createClient(options: { name: string; group: string; warehouses: string; readOnly: boolean }): Promise<ClientCredentials> {
    const name = checkName(options.name, '--name', 64);
    const wids = parseIdList(options.warehouses, '--warehouses');
    return this.write('client', async (ctx) => {
      const group = await this.accounts.groupNamed(ctx, options.group);
      if (!group) throw new AdminInputError(`unknown group "${options.group}"`);
      for (const wID of wids) {
        if (!(await this.accounts.warehouseExists(ctx, wID))) throw new AdminInputError(`unknown warehouse ${wID}`);
      }
      return this.insertClient(ctx, name, group.id, wids, options.readOnly);
    });
  }

  /**
   * Disabling also revokes every token issued so far (DECISIONS
   * "Authentication"): the client's token generation moves on, and its tokens
   * are deleted, so that enabling it again revives none of them.
   */
  async setDisabled(clientId: string, disabled: boolean): Promise<{ clientId: string; disabled: boolean }> {
    await this.tx.run(async (ctx) => {
      if (!(await this.accounts.setDisabled(ctx, clientId, disabled, new Date()))) throw new AdminInputError(`unknown client "${clientId}"`);
      if (disabled) await this.tokens.deleteOfClient(ctx, clientId);
    });
    return { clientId, disabled };
  }

  /** Every client, oldest first, with its group and warehouses; secrets are never shown (only their hashes are stored). */
  async listClients(): Promise<{ clients: ClientSummary[] }> {
    const { clients, groups, scopes } = await this.accounts.clientListing();
    const groupOf = new Map(groups.map((g) => [g.id, g]));
    const warehousesOf = new Map<string, number[]>();
    for (const s of scopes) warehousesOf.set(s.clientId, [...(warehousesOf.get(s.clientId) ?? []), s.wID]);
    return {
      clients: clients.map((c) => ({
        clientId: c.clientId,
        name: c.name,
        group: groupOf.get(c.groupId)?.name ?? '',
        permissions: groupOf.get(c.groupId)?.permissions ?? [],
        warehouses: warehousesOf.get(c.clientId) ?? [],
        readOnly: c.readOnly,
        disabled: c.disabled,
        created: c.created.toISOString(),
        secretRotated: c.secretRotated?.toISOString() ?? null,
      })),
    };
  }

  /** A new secret; the old one stops working at once, tokens issued with it keep working until they expire. */
  async rotateSecret(clientId: string): Promise<ClientCredentials> {
    const clientSecret = newSecret();
    const now = new Date();
    if (!(await this.accounts.setSecret(clientId, hashCredential(clientSecret), now))) throw new AdminInputError(`unknown client "${clientId}"`);
    return { clientId, clientSecret };
  }

  /**
   * First start on an empty database (no client yet): warehouse 1 "Main", a
   * group "admin" with every SecurityID, and a client in it scoped to warehouse
   * 1. Returns its credentials, to be shown once; null when clients exist.
   * Several instances starting at once: one wins, the others see a unique-key
   * violation and create nothing.
   */
  async bootstrapIfEmpty(): Promise<BootstrapCredentials | null> {
    if ((await this.accounts.countClients()) > 0) return null;
    try {
      return await this.tx.run(async (ctx) => {
        if (!(await this.accounts.warehouseExists(ctx, 1))) await this.accounts.insertWarehouse(ctx, { wID: 1, name: 'Main', nameKey: 'Main', created: new Date() });
        const group = await this.insertGroup(ctx, 'admin', ALL_SECURITY_IDS);
        const credentials = await this.insertClient(ctx, 'admin', group.id, [1], false);
        return { ...credentials, group: group.name, warehouses: [1] };
      });
    } catch (error) {
      if (isUniqueViolation(error)) return null;
      throw error;
    }
  }

  private insertGroup(ctx: TransactionContext, name: string, permissions: SecurityId[]): Promise<PermissionGroup> {
    return this.accounts.insertGroup(ctx, { name, nameKey: name, permissions, created: new Date() });
  }

  /** A new client with new credentials, in the group and scoped to the warehouses. */
  private async insertClient(ctx: TransactionContext, name: string, groupId: number, wids: number[], readOnly: boolean): Promise<ClientCredentials> {
    const clientId = newClientId();
    const clientSecret = newSecret();
    const now = new Date();
    const client = {
      clientId,
      name,
      nameKey: name,
      groupId,
      secretHash: hashCredential(clientSecret),
      secretRotated: null,
      readOnly,
      disabled: false,
      tokenGeneration: 0,
      created: now,
      modified: now,
    };
    await this.accounts.insertClient(ctx, client, wids);
    return { clientId, clientSecret };
  }

  /** One transaction; a duplicate name becomes a plain error. */
  private async write<T>(what: string, work: (ctx: TransactionContext) => Promise<T>): Promise<T> {
    try {
      return await this.tx.run((ctx) => work(ctx));
    } catch (error) {
      if (isUniqueViolation(error)) throw new AdminInputError(`a ${what} with that name already exists`);
      throw error;
    }
  }
}

function checkName(value: string | undefined, flag: string, max: number): string {
  const clean = value?.trim() ?? '';
  if (!clean || clean.length > max || !NAME.test(clean)) throw new AdminInputError(`${flag} must be 1 to ${max} printable characters`);
  return clean;
}

function parseIdList(value: string | undefined, flag: string): number[] {
  if ((value ?? '').trim() === '') return [];
  const parts = (value ?? '').split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d{1,10}$/.test(p))) throw new AdminInputError(`${flag} must be a comma-separated list of whole numbers`);
  return [...new Set(parts.map(Number))];
}
