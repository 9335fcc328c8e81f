import { Body, Controller, Get, Module, Post, Query } from '@nestjs/common';
import { IsInt, IsString, Min } from 'class-validator';
import { PageQueryDto } from '../../src/pagination/page-query.dto.js';
import { MAX_PAGE_SIZE, Page, resolvePage, type PageSpec } from '../../src/pagination/page.js';

/**
 * Routes that exist only in tests, to drive the shared HTTP machinery (filter,
 * validation pipe, page headers) through real requests before any feature uses it.
 */
class ProbeDto {
  @IsString()
  name: string;

  @IsInt()
  @Min(1)
  count: number;
}

const PROBE_SPEC: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { name: 'probe.name', created: 'probe.created' },
  defaultSort: { column: 'probe.name', direction: 'ASC' },
  tiebreak: 'probe.id',
  modifiedColumn: 'probe.modified',
};

@Controller('__probe')
class ProbeController {
  @Get('fail')
  fail(): never {
    throw new Error('secret internal detail at /srv/app/db.ts:42');
  }

  @Post('echo')
  echo(@Body() body: ProbeDto): ProbeDto {
    return body;
  }

  /** A list of 60 numbered rows through the real page envelope and headers. */
  @Get('page')
  page(@Query() query: PageQueryDto): Page<{ n: number }> {
    const request = resolvePage(query, PROBE_SPEC);
    const rows = Array.from({ length: 60 }, (_, i) => ({ n: i + 1 }));
    return new Page(rows.slice(request.offset, request.offset + request.pageSize), rows.length, request);
  }

  @Get('slow')
  async slow(): Promise<{ done: true }> {
    await new Promise((r) => setTimeout(r, 600));
    return { done: true };
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
