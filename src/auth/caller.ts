import { DomainError } from '../errors.js';
import type { SecurityId } from './security-id.js';

/** The spec's four 403 messages ("Errors / 403 variants"), exactly. */
export const FORBIDDEN = {
  permission: 'Insufficient permissions.',
  readOnly: 'Account is read-only.',
  scope: "Warehouse is outside the client's authorized scope.",
  report: 'Report access denied.',
} as const;

export class Forbidden extends DomainError {
  constructor(message: (typeof FORBIDDEN)[keyof typeof FORBIDDEN]) {
    super('forbidden', message);
  }
}

/** The authenticated integration user behind a request, as cached for at most ACCOUNT_CACHE_SECONDS. */
export class Caller {
  constructor(
    readonly clientId: string,
    readonly name: string,
    readonly permissions: ReadonlySet<SecurityId>,
    /** Warehouse IDs in scope, ascending. */
    readonly warehouses: readonly number[],
    readonly readOnly: boolean,
  ) {}

  can(permission: SecurityId): boolean {
    return this.permissions.has(permission);
  }

  /**
   * Whether a warehouse is in the caller's scope. A document (allocation,
   * expectation) named by its id in a warehouse out of scope is, to this
   * caller, no document at all: 404, as for an id that names none, so that
   * ids do not tell what other warehouses hold.
   */
  sees(wid: number): boolean {
    return this.warehouses.includes(wid);
  }

  /**
   * The one warehouse-scope rule (spec "Permissions and scope per action",
   * rules 1 and 2): every warehouse a request names must be assigned to the
   * caller, whether or not it exists. Undefined entries are skipped.
   */
  assertWarehouses(...wids: Array<number | null | undefined>): void {
    for (const wid of wids) {
      if (wid !== undefined && wid !== null && !this.sees(wid)) throw new Forbidden(FORBIDDEN.scope);
    }
  }
}
