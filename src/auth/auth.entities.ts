import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { caseKeyTransformer } from '../database/case-key.js';
import type { SecurityId } from './security-id.js';

/** Warehouses exist only through the admin CLI (DECISIONS "Inventory"). */
@Entity('warehouse')
export class Warehouse {
  @PrimaryColumn({ type: 'int' })
  wID: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** caseKey(name): names are unique regardless of case. */
  @Column({ type: 'varchar', length: 100, transformer: caseKeyTransformer })
  nameKey: string;

  @Column({ type: 'datetime' })
  created: Date;
}

const securityIdList = {
  to: (ids: SecurityId[]) => [...new Set(ids)].sort((a, b) => a - b).join(','),
  from: (raw: string) => (raw ? raw.split(',').map(Number) : []) as SecurityId[],
};

/** A permission group: the SecurityIDs its clients hold. */
@Entity('permission_group')
export class PermissionGroup {
  @PrimaryGeneratedColumn({ type: 'int' })
  id: number;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 64, transformer: caseKeyTransformer })
  nameKey: string;

  @Column({ type: 'varchar', length: 255, transformer: securityIdList })
  permissions: SecurityId[];

  @Column({ type: 'datetime' })
  created: Date;
}

/** An integration user: one client-credentials pair, its group, scope and state. */
@Entity('integration_client')
export class IntegrationClient {
  /** The public client id (`client_id`). */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  clientId: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 64, transformer: caseKeyTransformer })
  nameKey: string;

  @Column({ type: 'int' })
  groupId: number;

  /** SHA-256 of the secret, hex; the secret itself is never stored. */
  @Column({ type: 'varchar', length: 64 })
  secretHash: string;

  @Column({ type: 'datetime', nullable: true })
  secretRotated: Date | null;

  @Column({ type: 'boolean', default: false })
  readOnly: boolean;

  @Column({ type: 'boolean', default: false })
  disabled: boolean;

  /** Moved on by every disable: tokens issued under an older generation never work again. */
  @Column({ type: 'int', default: 0 })
  tokenGeneration: number;

  @Column({ type: 'datetime' })
  created: Date;

  @Column({ type: 'datetime' })
  modified: Date;
}

/** The warehouses a client may read and write. */
@Entity('client_warehouse')
export class ClientWarehouse {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  clientId: string;

  @PrimaryColumn({ type: 'int' })
  wID: number;
}

/** An issued access token, kept only as its SHA-256 hash. */
@Entity('access_token')
export class AccessToken {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  tokenHash: string;

  @Column({ type: 'varchar', length: 64 })
  clientId: string;

  @Column({ type: 'datetime' })
  issued: Date;

  @Column({ type: 'datetime' })
  expires: Date;

  /** The client's token generation when the token was issued. */
  @Column({ type: 'int', default: 0 })
  generation: number;
}

export const AUTH_ENTITIES = [Warehouse, PermissionGroup, IntegrationClient, ClientWarehouse, AccessToken];
