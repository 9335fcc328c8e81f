import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';
import { IsDecimal4, IsInt32, IsShortId, IsText } from '../http/validators.js';
import { PageQueryDto } from '../pagination/page-query.dto.js';
import type { Item } from './catalog.entities.js';

/** The item fields a client may set; read-only ones (partNo, created, createdBy, modified) are not here, so they are stripped. */
class ItemFieldsDto {
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsText(255)
  description?: string;

  @ApiPropertyOptional({ description: 'Category ID' })
  @IsOptional()
  @IsInt32()
  category?: number;

  @ApiPropertyOptional({ description: 'Getting-started name of `category`; accepted on input only', deprecated: true })
  @IsOptional()
  @IsInt32()
  categoryID?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt32()
  subCategory?: number;

  @ApiPropertyOptional({ description: 'Unit of measure (EA, KG, M, …)', maxLength: 16 })
  @IsOptional()
  @IsText(16, 1)
  uOM?: string;

  @ApiPropertyOptional({ description: 'Getting-started name of `uOM`; accepted on input only', deprecated: true })
  @IsOptional()
  @IsText(16, 1)
  unit?: string;

  @ApiPropertyOptional({ maxLength: 100 })
  @IsOptional()
  @IsText(100)
  putUp?: string;

  @ApiPropertyOptional({ description: 'Units per package; > 0, at most 4 decimal places' })
  @IsOptional()
  @IsDecimal4({ greaterThan: 0 })
  units?: number;

  @ApiPropertyOptional({ description: 'Default owner (customer ID; 0 = own stock)' })
  @IsOptional()
  @IsInt32()
  dfltOwner?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean({ message: 'discontinued must be true or false' })
  discontinued?: boolean;

  @ApiPropertyOptional({ description: 'Getting-started name: the opposite of `discontinued`; accepted on input only', deprecated: true })
  @IsOptional()
  @IsBoolean({ message: 'active must be true or false' })
  active?: boolean;
}

export class CreateItemDto extends ItemFieldsDto {
  @ApiProperty({ description: 'SKU; unique regardless of case; cannot be renamed', maxLength: 64 })
  @IsShortId()
  shortID: string;
}

export class UpdateItemDto extends ItemFieldsDto {
  @ApiProperty({ description: 'Identifies the item; cannot be changed', maxLength: 64 })
  @IsShortId()
  shortID: string;
}

/** GET /Item: a page, one item by key, or one category. */
export class ItemQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'shortID or alias to look up (with `type`)' })
  @IsOptional()
  @IsShortId('key')
  key?: string;

  @ApiPropertyOptional({ enum: ['id', 'alias'], default: 'id' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value))
  @IsIn(['id', 'alias'], { message: 'type must be id or alias' })
  type?: 'id' | 'alias';

  @ApiPropertyOptional({ name: 'Category', description: 'All non-discontinued items of a category, as a flat array' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value))
  @IsInt32()
  category?: number;
}

/** The item fields a client set, in canonical names (the getting-started names mapped; canonical wins). */
export function itemChanges(dto: ItemFieldsDto): Partial<Item> {
  const changes: Partial<Item> = {
    description: dto.description,
    category: dto.category ?? dto.categoryID,
    subCategory: dto.subCategory,
    uOM: dto.uOM ?? dto.unit,
    putUp: dto.putUp,
    units: dto.units,
    dfltOwner: dto.dfltOwner,
    discontinued: dto.discontinued ?? (dto.active === undefined ? undefined : !dto.active),
  };
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<Item>;
}
