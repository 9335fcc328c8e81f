import { Controller, Delete, Get, Module, Post, Put } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import { TransactionRunner } from '../database/transactions.js';
import { DeclaredRoutes } from './routes.js';
import { UnitOfWork, UnitOfWorkCheck } from './unit-of-work.js';

@Controller('declared')
class DeclaredController {
  @Get() read() {}
  @Post() @UnitOfWork() create() {}
  @Put() @UnitOfWork() update() {}
}

@Controller('forgetful')
class ForgetfulController {
  @Get() read() {}
  @Post() @UnitOfWork() create() {}
  @Delete() remove() {}
}

const start = (controller: new () => object) => {
  @Module({
    imports: [DiscoveryModule],
    controllers: [controller],
    providers: [DeclaredRoutes, UnitOfWorkCheck, { provide: TransactionRunner, useValue: {} }],
  })
  class RoutesModule {}
  return NestFactory.createApplicationContext(RoutesModule, { logger: false, abortOnError: false });
};

describe('the start-up check of write routes', () => {
  it('starts when every route but GET declares @UnitOfWork()', async () => {
    await expect(start(DeclaredController).then((app) => app.close())).resolves.toBeUndefined();
  });

  it('refuses to start, naming the route, when a write route lacks @UnitOfWork()', async () => {
    await expect(start(ForgetfulController)).rejects.toThrow('Write routes without @UnitOfWork(): ForgetfulController.remove (DELETE)');
  });
});
