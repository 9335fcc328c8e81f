import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { caseKeyTransformer } from '../database/case-key.js';
import { decimalTransformer } from '../quantity.js';

/** A part of the catalog (spec "Item"). */
@Entity('item')
export class Item {
  @PrimaryGeneratedColumn({ type: 'int' })
  partNo: number;

  @Column({ type: 'varchar', length: 64 })
  shortID: string;

  /** caseKey(shortID): `abc-1` and `ABC-1` are the same item (DECISIONS "Items"). */
  @Column({ type: 'varchar', length: 64, transformer: caseKeyTransformer })
  shortIdKey: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  description: string;

  @Column({ type: 'int', default: 0 })
  category: number;

  @Column({ type: 'int', default: 0 })
  subCategory: number;

  @Column({ type: 'varchar', length: 16, default: 'EA' })
  uOM: string;

  @Column({ type: 'varchar', length: 100, default: '' })
  putUp: string;

  @Column({ type: 'decimal', precision: 18, scale: 4, transformer: decimalTransformer })
  units: number;

  @Column({ type: 'int', default: 0 })
  dfltOwner: number;

  @Column({ type: 'datetime' })
  created: Date;

  @Column({ type: 'datetime' })
  modified: Date;

  @Column({ type: 'boolean', default: false })
  discontinued: boolean;

  @Column({ type: 'varchar', length: 64 })
  createdBy: string;
}

/** An alternate part number pointing to an item; many per item. */
@Entity('item_alias')
export class ItemAlias {
  @PrimaryGeneratedColumn({ type: 'int' })
  id: number;

  @Column({ type: 'varchar', length: 64 })
  alias: string;

  @Column({ type: 'varchar', length: 64, transformer: caseKeyTransformer })
  aliasKey: string;

  @Column({ type: 'int' })
  partNo: number;

  @Column({ type: 'datetime' })
  created: Date;
}

export const CATALOG_ENTITIES = [Item, ItemAlias];
