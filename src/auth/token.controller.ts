import { Body, type CanActivate, Controller, Header, HttpCode, Injectable, Post, Req, UseGuards, type ExecutionContext } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ref } from '../openapi-schemas.js';
import type { Request } from 'express';
import { AccessService, InvalidClient, type TokenResponse } from './access.service.js';
import type { IntegrationClient } from './auth.entities.js';
import { Public } from './guards.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The client that HTTP Basic authenticated on POST /Token. */
    basicClient?: IntegrationClient;
  }
}

/**
 * HTTP Basic client authentication for POST /Token, run only when the request
 * uses Basic. RFC 6749 §2.3.1: id and secret are form-encoded, then joined by
 * a colon; RFC 7617: split at the first colon, the secret is all that follows
 * it (DECISIONS "Authentication"), so a secret with anything appended is a
 * wrong secret and a secret holding a colon still works.
 */
@Injectable()
export class ClientBasicGuard implements CanActivate {
  constructor(private readonly access: AccessService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const header = req.headers.authorization ?? '';
    if (!/^Basic\s/i.test(header)) return true;
    const credentials = basicCredentials(header);
    if (!credentials) throw new InvalidClient(true);
    req.basicClient = await this.access.verifyClient(credentials.clientId, credentials.secret, true);
    return true;
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

@ApiTags('Token')
@Controller('Token')
export class TokenController {
  constructor(private readonly access: AccessService) {}

  @Post()
  @Public()
  @HttpCode(200)
  @UseGuards(ClientBasicGuard)
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
  @ApiOkResponse({ description: 'A bearer token (Cache-Control: no-store)', schema: ref('Token') })
  @ApiResponse({ status: 400, description: 'invalid_request | unsupported_grant_type', schema: ref('Error') })
  @ApiResponse({ status: 401, description: 'invalid_client: unknown client, wrong secret or disabled client, alike', schema: ref('Error') })
  token(@Req() req: Request, @Body() body: Record<string, unknown>): Promise<TokenResponse> {
    return this.access.token(body, req.basicClient);
  }
}
