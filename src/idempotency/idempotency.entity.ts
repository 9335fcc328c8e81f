import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A stored response for an Idempotency-Key, per client, kept 24 hours. */
@Entity('idempotency_record')
export class IdempotencyRecord {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  clientId: string;

  /** SHA-256 of the key. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  keyHash: string;

  /** SHA-256 of method, route and body: the same key with another request is refused. */
  @Column({ type: 'varchar', length: 64 })
  requestHash: string;

  @Column({ type: 'varchar', length: 16 })
  state: 'pending' | 'done';

  @Column({ type: 'int', nullable: true })
  status: number | null;

  /** MEDIUMTEXT on MySQL (migration LargeResponses): an answer may list thousands of lots. */
  @Column({ type: 'text', nullable: true })
  body: string | null;

  @Column({ type: 'datetime' })
  created: Date;
}

export const IDEMPOTENCY_ENTITIES = [IdempotencyRecord];
