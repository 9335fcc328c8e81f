import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  type OnModuleInit,
  RequestMethod,
  SetMetadata,
  type Type,
  UseInterceptors,
} from '@nestjs/common';
import { DECORATORS } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { map, type Observable } from 'rxjs';
import { type DeclaredRoute, DeclaredRoutes } from '../http/routes.js';
import { Page } from './page.js';
import { isPageClass } from './page.responses.js';

const PAGE_HEADERS = 'pagination:headers';

/**
 * On every list route (a route that can answer a `Page`): the page headers.
 * Only list routes carry it, so a point read pays for no interceptor;
 * `PageHeadersCheck` refuses to start a service with a route that documents a
 * page answer (`@ApiAnswer` with a `PageOf` class) and lacks it.
 */
export const PageHeaders = () => applyDecorators(SetMetadata(PAGE_HEADERS, true), UseInterceptors(PageHeadersInterceptor));

/**
 * For a handler that returns a `Page`: the headers of spec "Limits" and
 * DECISIONS "Pagination" (`X-Total-Count`, `X-Page-Size`, `X-Page`) and an
 * RFC 8288 `Link` header with first, prev, next and last.
 */
@Injectable()
export class PageHeadersInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((body: unknown) => {
        if (body instanceof Page) {
          const http = context.switchToHttp();
          setPageHeaders(http.getRequest<Request>(), http.getResponse<Response>(), body);
        }
        return body;
      }),
    );
  }
}

/** At start-up: a list route without `@PageHeaders()` would send its pages without their headers, so the service does not start. */
@Injectable()
export class PageHeadersCheck implements OnModuleInit {
  constructor(private readonly routes: DeclaredRoutes) {}

  onModuleInit(): void {
    // A list route: a GET whose documented answer is a page.
    const isList = (r: DeclaredRoute) => r.method === RequestMethod.GET && ((Reflect.getMetadata(DECORATORS.API_EXTRA_MODELS, r.handler) ?? []) as Type[]).some(isPageClass);
    const missing = this.routes.lacking(PAGE_HEADERS, isList);
    if (missing.length) throw new Error(`List routes without @PageHeaders(): ${missing.join(', ')}`);
  }
}

export function setPageHeaders(req: Request, res: Response, page: Page<unknown>): void {
  res.setHeader('X-Total-Count', String(page.totalCount));
  res.setHeader('X-Page-Size', String(page.pageSize));
  res.setHeader('X-Page', String(page.page));
  res.setHeader('Link', linkHeader(req.originalUrl, page));
}

/**
 * The query parameters a Link keeps besides page and pageSize: the list
 * parameters the endpoints understand. Anything else the client sent is left
 * out, as is a value too long to be a valid one (an unknown sort is ignored by
 * the endpoint): echoing it four times once made the headers too large for
 * clients to read (found by fuzzing).
 */
const KEPT = new Map(['sort', 'direction', 'modifiedSince', 'itemID', 'reference', 'state'].map((name) => [name.toLowerCase(), name]));
const MAX_KEPT_VALUE = 100;

/** What the links of a page need; `hasMore` and the cursors as a Page has them. */
export type LinkedPage = Pick<Page<unknown>, 'page' | 'pageSize' | 'pageCount'> & Partial<Pick<Page<unknown>, 'hasMore' | 'nextCursor' | 'prevCursor'>>;

/**
 * Relative links (no Host header is trusted) with the list's own parameters
 * kept. `next` and `prev` carry the cursor of the page they lead to when the
 * page has one (a page of rows does); `first` and `last` are page numbers.
 */
export function linkHeader(originalUrl: string, page: LinkedPage): string {
  const sent = new URL(originalUrl, 'http://service.invalid');
  const kept = new URLSearchParams();
  for (const [key, value] of sent.searchParams) {
    const name = KEPT.get(key.toLowerCase());
    if (name && value.length <= MAX_KEPT_VALUE) kept.append(name, value);
  }
  const to = (n: number, rel: string, cursor?: string) => {
    const query = new URLSearchParams(kept);
    query.set('page', String(n));
    query.set('pageSize', String(page.pageSize));
    if (cursor) query.set('cursor', cursor);
    return `<${sent.pathname}?${query}>; rel="${rel}"`;
  };
  const last = Math.max(page.pageCount, 1);
  const links = [to(1, 'first')];
  if (page.prevCursor) links.push(to(Math.max(page.page - 1, 1), 'prev', page.prevCursor));
  else if (page.page > 1) links.push(to(Math.min(page.page - 1, last), 'prev'));
  if (page.hasMore ?? page.page < page.pageCount) links.push(to(page.page + 1, 'next', page.nextCursor));
  links.push(to(last, 'last'));
  return links.join(', ');
}
