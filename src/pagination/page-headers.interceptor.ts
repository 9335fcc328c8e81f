import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { map, type Observable } from 'rxjs';
import { Page } from './page.js';

/**
 * For any handler that returns a `Page`: the headers of spec "Limits" and
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

export function setPageHeaders(req: Request, res: Response, page: Page<unknown>): void {
  res.setHeader('X-Total-Count', String(page.totalCount));
  res.setHeader('X-Page-Size', String(page.pageSize));
  res.setHeader('X-Page', String(page.page));
  res.setHeader('Link', linkHeader(req.originalUrl, page));
}

/** Relative links (no Host header is trusted), keeping every other query parameter as sent. */
export function linkHeader(originalUrl: string, page: Pick<Page<unknown>, 'page' | 'pageSize' | 'pageCount'>): string {
  const url = new URL(originalUrl, 'http://service.invalid');
  const to = (n: number, rel: string) => {
    for (const key of [...url.searchParams.keys()]) {
      if (key.toLowerCase() === 'page' || key.toLowerCase() === 'pagesize') url.searchParams.delete(key);
    }
    url.searchParams.set('page', String(n));
    url.searchParams.set('pageSize', String(page.pageSize));
    return `<${url.pathname}${url.search}>; rel="${rel}"`;
  };
  const last = Math.max(page.pageCount, 1);
  const links = [to(1, 'first')];
  if (page.page > 1) links.push(to(Math.min(page.page - 1, last), 'prev'));
  if (page.page < page.pageCount) links.push(to(page.page + 1, 'next'));
  links.push(to(last, 'last'));
  return links.join(', ');
}
