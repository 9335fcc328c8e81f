/**
 * A list request's page parameters as sent (PageQueryDto validates them):
 * what `paginate` resolves against a list's PageSpec. A repository takes
 * this, not the request's DTO.
 */
export interface PageQuery {
  page?: number;
  pageSize?: number;
  sort?: string;
  direction?: string;
  modifiedSince?: Date;
  cursor?: string;
}

/** A sort direction, as the `direction` parameter and the SQL say it. */
export type Direction = 'ASC' | 'DESC';

/** A list request resolved against its PageSpec (resolvePage): the page, its size and offset, the order with its tiebreak, the filter. */
export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
  order: Array<[column: string, direction: Direction]>;
  modifiedSince: Date | null;
}

/** Where a page stands besides its number: whether rows follow it (when not simply page < pageCount), and its neighbours' cursors. */
export interface PagePosition {
  hasMore?: boolean;
  next?: string;
  prev?: string;
}
