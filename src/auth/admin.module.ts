import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminService } from './admin.service.js';
import { AUTH_ENTITIES } from './auth.entities.js';

/** Warehouses, groups and clients as the admin CLI manages them; also the first-start bootstrap. */
@Module({
  imports: [TypeOrmModule.forFeature(AUTH_ENTITIES)],
  providers: [AdminService],
  exports: [AdminService],
})
export class AdminModule {}
