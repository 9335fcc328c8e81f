import { Body, Controller, Header, HttpCode, HttpStatus, Injectable, Post, Req, UseGuards, type ExecutionContext } from '@nestjs/common';
import { AuthGuard, PassportStrategy } from '@nestjs/passport';
import { ApiBasicAuth, ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiFailures } from '../http/openapi-decorators.js';
import { Public } from '../http/route-access.js';
import { UnitOfWork } from '../http/unit-of-work.js';
import type { Request } from 'express';
import { BasicStrategy } from 'passport-http';
import { AccessService, InvalidClient } from './access.service.js';
import type { IntegrationClient } from './auth.entities.js';
import { TokenResponseDto } from './token.responses.js';

/**
 * HTTP Basic client authentication for POST /Token (RFC 6749 §2.3.1: id and
 * secret form-encoded, then joined by a colon). passport-http reads the
 * scheme and answers a malformed or empty header; it splits the credentials at
 * every colon, though, so the id and secret are taken from the header again
 * here, split at the first colon (RFC 7617, DECISIONS "Authentication"): a
 * secret with anything appended is a wrong secret, and a secret holding a
 * colon still works.
 */
@Injectable()
export class ClientBasicStrategy extends PassportStrategy(BasicStrategy, 'client-basic') {
  constructor(private readonly access: AccessService) {
    super({ passReqToCallback: true });
  }

  validate(req: Request, _username: string, _password: string): Promise<IntegrationClient> {
    const credentials = basicCredentials(req.headers.authorization ?? '');
    if (!credentials) throw new InvalidClient(true);
    return this.access.verifyClient(credentials.clientId, credentials.secret, true);
  }
}

/** The id and secret of a Basic header, or null when it is malformed or either part is empty. */
export function basicCredentials(header: string): { clientId: string; secret: string } | null {
  const match = /^Basic +([A-Za-z0-9+/_-]+={0,2}) *$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1 || colon === decoded.length - 1) return null;
  return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

/** Runs the Basic strategy only when the request uses Basic; body credentials are checked by the service. */
@Injectable()
export class OptionalClientBasicGuard extends AuthGuard('client-basic') {
  override canActivate(context: ExecutionContext) {
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    return /^Basic\s/i.test(header) ? super.canActivate(context) : true;
  }

  override handleRequest<T>(error: unknown, client: T): T {
    if (error) throw error;
    if (!client) throw new InvalidClient(true);
    return client;
  }
}

@ApiTags('Token')
@Controller('Token')
export class TokenController {
  constructor(private readonly access: AccessService) {}

  @Post()
  @Public()
  @UnitOfWork()
  @HttpCode(200)
  @UseGuards(OptionalClientBasicGuard)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    summary: 'OAuth 2.0 client credentials: exchange a client id and secret for a bearer token',
    description: 'Credentials as form fields, JSON fields, or HTTP Basic (client id as user, secret as password).',
  })
  @ApiBasicAuth()
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['grant_type'],
      properties: {
        grant_type: { type: 'string', enum: ['client_credentials'] },
        client_id: { type: 'string' },
        client_secret: { type: 'string' },
      },
    },
  })
  @ApiAnswer(HttpStatus.OK, TokenResponseDto, 'A bearer token (Cache-Control: no-store)')
  @ApiFailures({
    invalid_request: 'grant_type, client_id or client_secret missing or not a single string, or credentials both in Basic and in the body',
    unsupported_grant_type: 'a grant_type other than client_credentials',
    invalid_client: 'unknown client, wrong secret or disabled client, alike (WWW-Authenticate: Basic when Basic was used)',
    rate_limited: 'over the rate limit, counted per remote address (Retry-After: seconds)',
    service_unavailable: 'the database connection was lost under the request',
  })
  token(@Req() req: Request, @Body() body: Record<string, unknown>): Promise<TokenResponseDto> {
    return this.access.token(body, req.user as IntegrationClient | undefined);
  }
}
