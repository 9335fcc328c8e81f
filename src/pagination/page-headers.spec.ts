import { Controller, Get, HttpStatus, Module } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import { ApiSchema } from '@nestjs/swagger';
import { ApiAnswer, ApiInteger } from '../http/openapi-decorators.js';
import { DeclaredRoutes } from '../http/routes.js';
import { PageHeaders, PageHeadersCheck } from './page-headers.interceptor.js';
import { PageOf } from './page.responses.js';

class ThingDto {
  @ApiInteger() n: number;
}

@ApiSchema({ name: 'ThingPage' })
class ThingPageDto extends PageOf(ThingDto) {}

@Controller('declared')
class DeclaredController {
  @Get() @PageHeaders() @ApiAnswer(HttpStatus.OK, ThingPageDto) list() {}
  @Get(':n') @ApiAnswer(HttpStatus.OK, ThingDto) one() {}
}

@Controller('forgetful')
class ForgetfulController {
  @Get() @ApiAnswer(HttpStatus.OK, ThingPageDto) list() {}
}

const start = (controller: new () => object) => {
  @Module({ imports: [DiscoveryModule], controllers: [controller], providers: [DeclaredRoutes, PageHeadersCheck] })
  class RoutesModule {}
  return NestFactory.createApplicationContext(RoutesModule, { logger: false, abortOnError: false });
};

describe('the start-up check of list routes', () => {
  it('starts when every route answering a page declares @PageHeaders(), and others need not', async () => {
    await expect(start(DeclaredController).then((app) => app.close())).resolves.toBeUndefined();
  });

  it('refuses to start, naming the route, when a route answering a page lacks @PageHeaders()', async () => {
    await expect(start(ForgetfulController)).rejects.toThrow('List routes without @PageHeaders(): ForgetfulController.list (GET)');
  });
});
