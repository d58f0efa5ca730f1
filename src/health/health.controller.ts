import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ReadinessService } from './readiness.service.js';

/** Liveness and readiness probes; no authentication. */
@Controller()
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /** Liveness: answers as long as the process serves HTTP; checks no dependency. */
  @Get('healthz')
  @HttpCode(200)
  live() {
    return { status: 'ok' };
  }

  /** Readiness: 200 when every dependency answers and the read models are current, else 503 naming the failures. */
  @Get('readyz')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const { ready, checks } = await this.readiness.check();
    if (ready) return { status: 'ready', checks };
    void reply.status(503);
    const failing = Object.entries(checks)
      .filter(([, result]) => result !== 'ok' && result !== 'not_configured')
      .map(([name]) => name);
    return { status: 'not_ready', failing, checks };
  }
}
