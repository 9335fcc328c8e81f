import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { SCHEMAS } from './openapi-schemas.js';

export const OPENAPI_JSON_PATH = 'api/v1/openapi.json';
export const DOCS_PATH = 'api/docs';

/** OpenAPI 3 document generated from the routes served, and its browsable page (no auth). */
export function setupOpenApi(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Inventory and Item Catalog API')
    .setDescription('Item catalog, lots, stock levels and inventory transactions for ERP connectors.')
    .setVersion('v1')
    // Tokens are opaque (DECISIONS "Authentication"), not the JWT that addBearerAuth assumes by default.
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'Access token from POST /api/v1/Token' })
    // The scheme POST /Token names (@ApiBasicAuth); without it the document refers to an undeclared scheme.
    .addBasicAuth({ type: 'http', scheme: 'basic', description: 'POST /api/v1/Token: client id as user, secret as password (or both as form or JSON fields)' })
    .build();
  SwaggerModule.setup(DOCS_PATH, app, () => withSchemas(SwaggerModule.createDocument(app, config)), {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    raw: ['json'],
  });
}

/** The response schemas the routes refer to (`openapi-schemas.ts`), as named components. */
function withSchemas(document: OpenAPIObject): OpenAPIObject {
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...SCHEMAS } };
  return document;
}
