import request from 'supertest';
import type { TestApp } from '../app.factory.js';

type Row = Record<string, unknown>;

export interface WalkedPage {
  /** The URL requested (path and query). */
  url: string;
  page: number;
  hasMore: boolean;
  totalCount: number;
  rows: Row[];
  links: Record<string, string>;
}

/** The Link header as rel → relative URL. */
export function links(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(', ')) {
    const m = /^<([^>]+)>; rel="(\w+)"$/.exec(part);
    if (m) out[m[2]] = m[1];
  }
  return out;
}

/** GET a list page; fails the test unless it is 200. */
export async function getPage(t: TestApp, bearer: string, url: string): Promise<WalkedPage> {
  const res = await request(t.http).get(url).set('Authorization', bearer);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${res.text}`);
  return { url, page: res.body.page, hasMore: res.body.hasMore, totalCount: res.body.totalCount, rows: res.body.value, links: links(res.headers.link) };
}

/**
 * Follows one rel (`next` or `prev`) of the Link header from `url` until a
 * page has none, calling `between` after each page (to change the data while
 * walking). Returns every page, in the order walked.
 */
export async function follow(t: TestApp, bearer: string, url: string, rel: 'next' | 'prev', between?: (page: WalkedPage) => Promise<void>): Promise<WalkedPage[]> {
  const pages: WalkedPage[] = [];
  for (let next: string | undefined = url; next !== undefined; ) {
    const page = await getPage(t, bearer, next);
    pages.push(page);
    if (pages.length > 500) throw new Error(`${url}: more than 500 pages`);
    if (between) await between(page);
    next = page.links[rel];
  }
  return pages;
}

/** The cursor a link carries. */
export function cursorOf(url: string | undefined): string {
  const cursor = new URL(url ?? '', 'http://x').searchParams.get('cursor');
  if (!cursor) throw new Error(`no cursor in ${url}`);
  return cursor;
}

/** A link with some of its parameters replaced (or removed, with null). */
export function withParams(url: string, params: Record<string, string | null>): string {
  const u = new URL(url, 'http://x');
  for (const [k, v] of Object.entries(params)) {
    if (v === null) u.searchParams.delete(k);
    else u.searchParams.set(k, v);
  }
  return `${u.pathname}${u.search}`;
}
