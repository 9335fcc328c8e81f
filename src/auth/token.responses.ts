import { ApiSchema } from '@nestjs/swagger';
import { ApiEnum, ApiInteger, ApiString } from '../http/openapi-decorators.js';

/** RFC 6749 §5.1: a bearer token of the client credentials grant (DECISIONS "Authentication"). */
@ApiSchema({ name: 'Token' })
export class TokenResponseDto {
  @ApiString() access_token: string;
  @ApiEnum(['bearer']) token_type: 'bearer';
  @ApiInteger() expires_in: number;
}
