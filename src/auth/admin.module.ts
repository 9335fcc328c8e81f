import { Module } from '@nestjs/common';
import { AccountsModule } from './accounts.module.js';
import { AdminService } from './admin.service.js';

/** Warehouses, groups and clients as the admin CLI manages them; also the first-start bootstrap. */
@Module({
  imports: [AccountsModule],
  providers: [AdminService],
  exports: [AdminService],
})
export class AdminModule {}
