import { Body, Controller, Get, HttpCode, Module, Post, Query } from '@nestjs/common';
import { IsInt, IsOptional, IsString, Min } from 'class-validator';
import type { Caller } from '../../src/auth/caller.js';
import { CurrentCaller, RequirePermission } from '../../src/auth/guards.js';
import { Public } from '../../src/http/route-access.js';
import { SecurityId } from '../../src/auth/security-id.js';
import { UnitOfWork } from '../../src/http/unit-of-work.js';
import { PageHeaders } from '../../src/pagination/page-headers.interceptor.js';
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

@Public()
@Controller('__probe')
class ProbeController {
  @Get('fail')
  fail(): never {
    throw new Error('secret internal detail at /srv/app/db.ts:42');
  }

  @Post('echo')
  @UnitOfWork()
  echo(@Body() body: ProbeDto): ProbeDto {
    return body;
  }

  /** A list of 60 numbered rows through the real page envelope and headers. */
  @Get('page')
  @PageHeaders()
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

class ScopeDto {
  @IsInt()
  wid: number;

  @IsOptional()
  @IsInt()
  shipToWid?: number;
}

/** Not public: one route per SecurityID, and one that applies the warehouse-scope rule. */
@Controller('__probe/secured')
class SecuredProbeController {
  @Get('11')
  @RequirePermission(SecurityId.ItemMasterList, 'probe')
  read(@CurrentCaller() caller: Caller) {
    return { clientId: caller.clientId };
  }

  @Post('15')
  @UnitOfWork()
  @HttpCode(200)
  @RequirePermission(SecurityId.LocateMoveUnits, 'probe')
  move() {
    return { ok: true };
  }

  @Post('88')
  @UnitOfWork()
  @HttpCode(200)
  @RequirePermission(SecurityId.NegativeAdjustment, 'probe')
  issue() {
    return { ok: true };
  }

  @Post('95')
  @UnitOfWork()
  @HttpCode(200)
  @RequirePermission(SecurityId.PositiveAdjustment, 'probe')
  receive() {
    return { ok: true };
  }

  @Post('116')
  @UnitOfWork()
  @HttpCode(200)
  @RequirePermission(SecurityId.ModifyItemMaster, 'probe')
  modify() {
    return { ok: true };
  }

  @Post('scope')
  @UnitOfWork()
  @HttpCode(200)
  @RequirePermission(SecurityId.LocateMoveUnits, 'probe')
  scope(@CurrentCaller() caller: Caller, @Body() body: ScopeDto) {
    caller.assertWarehouses(body.wid, body.shipToWid);
    return { warehouses: caller.warehouses };
  }

  @Get('undeclared')
  undeclared() {
    return { leaked: true };
  }
}

@Module({ controllers: [ProbeController, SecuredProbeController] })
export class ProbeModule {}
