import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { ApiBoolean, ApiInteger } from '../http/openapi-decorators.js';

const PAGE_CLASS = Symbol('page envelope');

/** Whether a response class is a page envelope (extends a `PageOf` class). */
export function isPageClass(type: unknown): boolean {
  return typeof type === 'function' && (type as unknown as Record<symbol, unknown>)[PAGE_CLASS] === true;
}

/**
 * The page envelope (spec "Page envelope") around items of one response
 * class, as a base class: a feature names each envelope it answers with,
 *
 *     @ApiSchema({ name: 'ItemPage' })
 *     export class ItemPageResponseDto extends PageOf(ItemResponseDto) {}
 *
 * so that every list has a schema, and a generated client a type, of its own.
 * The fields are those of `Page` (`page.ts`), which is what a list returns;
 * a controller that declares the class as its return type has `tsc` hold the
 * two together.
 */
export function PageOf<T>(item: Type<T>) {
  abstract class PageResponseDto {
    static readonly [PAGE_CLASS] = true;
    @ApiProperty({ type: [item] }) value: T[];
    @ApiInteger() totalCount: number;
    @ApiInteger() page: number;
    @ApiInteger() pageSize: number;
    @ApiInteger() pageCount: number;
    @ApiBoolean() hasMore: boolean;
  }
  return PageResponseDto;
}
