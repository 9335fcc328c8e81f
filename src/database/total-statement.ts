/** A list's exact total as one statement (its maintained counters), which paginate runs before the page's reads. */
export interface TotalStatement {
  sql: string;
  params: unknown[];
  total(rows: Array<Record<string, unknown>>): number;
}
