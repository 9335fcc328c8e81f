import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsRepository } from './accounts.repository.js';
import { AUTH_ENTITIES } from './auth.entities.js';
import { TokensRepository } from './tokens.repository.js';

/** The statements on auth's tables, one instance each: for AuthModule, AdminModule and the webhook commands' client check. */
@Module({
  imports: [TypeOrmModule.forFeature(AUTH_ENTITIES)],
  providers: [AccountsRepository, TokensRepository],
  exports: [AccountsRepository, TokensRepository],
})
export class AccountsModule {}
