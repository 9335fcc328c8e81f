import { Injectable } from '@nestjs/common';

/**
 * Whether this instance should be sent new work: false from SIGTERM on,
 * while the requests in flight drain (`closeGracefully`). GET /health/ready
 * answers 503 from then, so that a load balancer stops routing here.
 */
@Injectable()
export class Readiness {
  private draining = false;

  get isDraining(): boolean {
    return this.draining;
  }

  drain(): void {
    this.draining = true;
  }
}
