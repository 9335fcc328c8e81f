import { ApiSchema, IntersectionType, OmitType } from '@nestjs/swagger';
import { ApiBoolean, ApiDateTime, ApiDecimal, ApiEnum, ApiInteger, ApiString } from '../http/openapi-decorators.js';
import { PageOf } from '../pagination/page.responses.js';
import type { Item } from './catalog.entities.js';

/** Spec "Items": an item as every /Item route answers it, fields in the spec's order. */
@ApiSchema({ name: 'Item' })
export class ItemResponseDto {
  @ApiInteger() partNo: number;
  @ApiString() shortID: string;
  @ApiString() description: string;
  @ApiInteger() category: number;
  @ApiInteger() subCategory: number;
  @ApiString() uOM: string;
  @ApiString() putUp: string;
  @ApiDecimal() units: number;
  @ApiInteger() dfltOwner: number;
  @ApiDateTime() created: string;
  @ApiDateTime() modified: string;
  @ApiBoolean() discontinued: boolean;
  @ApiString() createdBy: string;
}

/** The spec's Item fields in the spec's order; nothing internal (shortIdKey) leaks. */
export function toItemResponse(item: Item): ItemResponseDto {
  return {
    partNo: item.partNo,
    shortID: item.shortID,
    description: item.description,
    category: item.category,
    subCategory: item.subCategory,
    uOM: item.uOM,
    putUp: item.putUp,
    units: item.units,
    dfltOwner: item.dfltOwner,
    created: item.created.toISOString(),
    modified: item.modified.toISOString(),
    discontinued: item.discontinued,
    createdBy: item.createdBy,
  };
}

/** `{shortID, status}`, the head of every answer to a catalog write. */
function ItemStatus<S extends string>(status: S) {
  class ItemStatusDto {
    @ApiString() shortID: string;
    @ApiEnum([status]) status: S;
  }
  return ItemStatusDto;
}

/** DECISIONS "Items": `{shortID, status, ...item}`, a superset of both shapes in the spec. */
const ItemWithStatus = <S extends string>(status: S) => IntersectionType(ItemStatus(status), OmitType(ItemResponseDto, ['shortID'] as const));

@ApiSchema({ name: 'ItemCreated' })
export class ItemCreatedResponseDto extends ItemWithStatus('created') {}

@ApiSchema({ name: 'ItemUpdated' })
export class ItemUpdatedResponseDto extends ItemWithStatus('updated') {}

@ApiSchema({ name: 'ItemDiscontinued' })
export class ItemDiscontinuedResponseDto extends ItemStatus('discontinued') {}

@ApiSchema({ name: 'ItemPage' })
export class ItemPageResponseDto extends PageOf(ItemResponseDto) {}

/** The answer to POST /Item (`created`) or PUT /Item (`updated`): the item with its status after the shortID. */
export function withStatus(item: Item, status: 'created'): ItemCreatedResponseDto;
export function withStatus(item: Item, status: 'updated'): ItemUpdatedResponseDto;
export function withStatus(item: Item, status: 'created' | 'updated'): ItemCreatedResponseDto | ItemUpdatedResponseDto {
  const { shortID, ...fields } = toItemResponse(item);
  return { shortID, status, ...fields };
}
