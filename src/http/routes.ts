import { Injectable, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';

/** One route handler of the application, as declared on its controller. */
export interface DeclaredRoute {
  /** `ItemsController.update (PUT)`, for messages. */
  name: string;
  method: RequestMethod;
  handler: (...args: unknown[]) => unknown;
  controller: abstract new (...args: never[]) => unknown;
}

/** Routes that only read: they never run a unit of work. */
export const READ_METHODS: ReadonlySet<RequestMethod> = new Set([RequestMethod.GET, RequestMethod.HEAD, RequestMethod.OPTIONS]);

/** The routes of every controller, for the checks that refuse to start a service whose routes lack a decorator they need. */
@Injectable()
export class DeclaredRoutes {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  /** The names of the routes `applies` selects that lack `marker` (a decorator's metadata key, on the handler or on its controller). */
  lacking(marker: string, applies: (route: DeclaredRoute) => boolean): string[] {
    return this.all()
      .filter((r) => applies(r) && !this.reflector.getAllAndOverride<boolean>(marker, [r.handler, r.controller]))
      .map((r) => r.name);
  }

  all(): DeclaredRoute[] {
    const routes: DeclaredRoute[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as DeclaredRoute['controller'] | null;
      if (!controller || !Reflect.hasMetadata(PATH_METADATA, controller)) continue;
      const prototype = controller.prototype as Record<string, DeclaredRoute['handler']>;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[methodName];
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        routes.push({ name: `${controller.name}.${methodName} (${RequestMethod[method]})`, method, handler, controller });
      }
    }
    return routes;
  }
}
