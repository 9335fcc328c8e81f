import { Injectable } from '@nestjs/common';
import { AccountsRepository } from '../auth/accounts.repository.js';

/**
 * Warehouse names for lot responses. A warehouse is created once (admin CLI)
 * and never renamed or removed, so a name once read is kept for the life of
 * the process; only warehouses not seen yet are read from the database
 * (auth's AccountsRepository, which holds every statement on `warehouse`).
 */
@Injectable()
export class WarehouseNames {
  private readonly known = new Map<number, string>();

  constructor(private readonly accounts: AccountsRepository) {}

  async of(wids: Iterable<number>): Promise<Map<number, string>> {
    const wanted = [...new Set(wids)];
    const missing = wanted.filter((w) => !this.known.has(w));
    if (missing.length) for (const w of await this.accounts.warehousesNamed(missing)) this.known.set(w.wID, w.name);
    return new Map(wanted.filter((w) => this.known.has(w)).map((w) => [w, this.known.get(w)!]));
  }

  async one(wid: number): Promise<string> {
    return (await this.of([wid])).get(wid) ?? '';
  }
}
