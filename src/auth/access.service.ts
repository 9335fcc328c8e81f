import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/config.js';
import { DomainError } from '../errors.js';
import { AccountsRepository } from './accounts.repository.js';
import type { IntegrationClient } from './auth.entities.js';
import { Caller } from './caller.js';
import { credentialMatches, hashCredential, newAccessToken, UNKNOWN_CLIENT_HASH } from './credentials.js';
import type { TokenResponseDto } from './token.responses.js';
import { TokensRepository } from './tokens.repository.js';
import { TtlCache } from './ttl-cache.js';

/** RFC 6749 §5.2 failures of POST /Token, in the spec's error shape (DECISIONS "Authentication"). */
export class InvalidClient extends DomainError {
  constructor(basicUsed: boolean) {
    super('invalid_client', 'Client authentication failed.', null, basicUsed ? { 'WWW-Authenticate': 'Basic realm="inventory"' } : {});
  }
}

export class InvalidTokenRequest extends DomainError {
  constructor(message: string) {
    super('invalid_request', message);
  }
}

export class UnsupportedGrantType extends DomainError {
  constructor() {
    super('unsupported_grant_type', 'grant_type must be client_credentials.');
  }
}

/** 401 for every route but POST /Token (RFC 6750 §3). */
export class Unauthenticated extends DomainError {
  constructor(reason: 'missing' | 'invalid' | 'expired') {
    const message = {
      missing: 'A bearer token is required.',
      invalid: 'The access token is invalid.',
      expired: 'The access token has expired; request a new one.',
    }[reason];
    const challenge = reason === 'missing' ? 'Bearer realm="inventory"' : 'Bearer realm="inventory", error="invalid_token"';
    super('unauthorized', message, null, { 'WWW-Authenticate': challenge });
  }
}

/** A token as cached: whose it is, until when, and under which of the client's token generations it was issued. */
interface TokenRecord {
  clientId: string;
  expires: number;
  generation: number;
}

/** Account state as cached; `tokenGeneration` is the oldest generation of tokens that still work. */
type Account = { caller: Caller; tokenGeneration: number } | 'disabled';

/**
 * Issues access tokens and resolves a bearer token to its `Caller`.
 *
 * Token records never change, so they are cached until they expire. Account
 * state (disabled, read-only, permissions, warehouses, token generation) is
 * cached for at most ACCOUNT_CACHE_SECONDS, which bounds how long a disabled
 * account's tokens keep working. Disabling moves the token generation on, so
 * tokens issued before it stay refused once the account is enabled again.
 * Rotating a secret touches neither: tokens issued before keep working.
 */
@Injectable()
export class AccessService {
  private readonly tokens: TtlCache<string, TokenRecord>;
  private readonly accounts: TtlCache<string, Account>;

  constructor(
    private readonly config: AppConfig,
    private readonly accountRows: AccountsRepository,
    private readonly tokenRows: TokensRepository,
  ) {
    this.tokens = new TtlCache(config.tokenTtlSeconds * 1000, 50_000);
    this.accounts = new TtlCache(config.accountCacheSeconds * 1000);
  }

  /** Checks a client id and secret in constant time; a disabled or unknown client fails the same way. */
  async verifyClient(clientId: string, secret: string, basicUsed: boolean): Promise<IntegrationClient> {
    const client = clientId.length <= 64 ? await this.accountRows.client(clientId) : null;
    const matches = credentialMatches(secret, client?.secretHash ?? UNKNOWN_CLIENT_HASH);
    if (!client || !matches || client.disabled) throw new InvalidClient(basicUsed);
    return client;
  }

  /** POST /Token once the client is known: RFC 6749 §4.4 with the checks of DECISIONS "Authentication". */
  async token(body: unknown, basicClient: IntegrationClient | undefined): Promise<TokenResponseDto> {
    const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const grantType = field(fields, 'grant_type');
    const clientId = field(fields, 'client_id');
    const secret = field(fields, 'client_secret');
    if (basicClient && (secret !== undefined || (clientId !== undefined && clientId !== basicClient.clientId))) {
      throw new InvalidTokenRequest('Send the client credentials either with HTTP Basic or in the body, not both.');
    }
    if (grantType === undefined) throw new InvalidTokenRequest('grant_type is required.');
    if (grantType !== 'client_credentials') throw new UnsupportedGrantType();
    let client = basicClient;
    if (!client) {
      if (clientId === undefined || secret === undefined) throw new InvalidTokenRequest('client_id and client_secret are required.');
      client = await this.verifyClient(clientId, secret, false);
    }
    return this.issue(client);
  }

  /** A token of the client's current generation: a disable that commits meanwhile revokes it too. */
  private async issue({ clientId, tokenGeneration }: IntegrationClient): Promise<TokenResponseDto> {
    const token = newAccessToken();
    const now = new Date();
    const expires = new Date(now.getTime() + this.config.tokenTtlSeconds * 1000);
    await this.tokenRows.insert({ tokenHash: hashCredential(token), clientId, issued: now, expires, generation: tokenGeneration });
    return { access_token: token, token_type: 'bearer', expires_in: this.config.tokenTtlSeconds };
  }

  /**
   * The same answer as `authenticate`, from the caches alone: undefined when
   * the token or its account is not cached (or no longer), so that the bearer
   * guard answers a known token without waiting on anything. The account is
   * still at most ACCOUNT_CACHE_SECONDS old.
   */
  authenticateCached(token: string): Caller | 'invalid' | 'expired' | undefined {
    if (token.length > 256) return 'invalid';
    const record = this.tokens.get(hashCredential(token));
    if (!record) return undefined;
    if (record.expires <= Date.now()) return 'expired';
    const account = this.accounts.get(record.clientId);
    return account === undefined ? undefined : verdict(record, account);
  }

  /** The caller behind a bearer token, or why there is none. */
  async authenticate(token: string): Promise<Caller | 'invalid' | 'expired'> {
    if (token.length > 256) return 'invalid';
    const tokenHash = hashCredential(token);
    let record = this.tokens.get(tokenHash);
    if (!record) {
      const row = await this.tokenRows.byHash(tokenHash);
      if (!row) return 'invalid';
      record = { clientId: row.clientId, expires: row.expires.getTime(), generation: row.generation };
      this.tokens.set(tokenHash, record, record.expires - Date.now());
    }
    if (record.expires <= Date.now()) return 'expired';
    return verdict(record, await this.account(record.clientId));
  }

  /** The client as a caller of the API now (at most ACCOUNT_CACHE_SECONDS old); null when it is disabled or unknown. */
  async callerOf(clientId: string): Promise<Caller | null> {
    const account = await this.account(clientId);
    return account === 'disabled' ? null : account.caller;
  }

  private async account(clientId: string): Promise<Account> {
    const cached = this.accounts.get(clientId);
    if (cached) return cached;
    const client = await this.accountRows.client(clientId);
    let account: Account = 'disabled';
    if (client && !client.disabled) {
      const [group, wids] = await Promise.all([this.accountRows.group(client.groupId), this.accountRows.warehousesOf(clientId)]);
      const caller = new Caller(client.clientId, client.name, new Set(group.permissions), wids, client.readOnly);
      account = { caller, tokenGeneration: client.tokenGeneration };
    }
    this.accounts.set(clientId, account);
    return account;
  }
}

/** A known, unexpired token's caller, unless its account is disabled or was disabled since the token was issued. */
function verdict(record: TokenRecord, account: Account): Caller | 'invalid' {
  // Generations only grow: a token older than the account's was revoked by a disable.
  if (account === 'disabled' || record.generation < account.tokenGeneration) return 'invalid';
  return account.caller;
}

/** A form or JSON field that must be one string; a repeated or non-string field is a malformed request. */
function field(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new InvalidTokenRequest(`${name} must be a single string.`);
  return value;
}
