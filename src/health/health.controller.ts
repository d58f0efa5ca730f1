import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AliveDto, ReadinessDto } from './dto/readiness.dto.js';
import { ReadinessService } from './readiness.service.js';

/** Liveness and readiness probes; no authentication. */
@Controller()
@ApiTags('Operations')
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /** Liveness: answers as long as the process serves HTTP; checks no dependency. */
  @Get('healthz')
  @HttpCode(200)
  @ApiOkResponse({ type: AliveDto })
  live(): AliveDto {
    return { status: 'ok' };
  }

  /** Readiness: 200 when every dependency answers and the read models are current, else 503 naming the failures. */
  @Get('readyz')
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ description: 'Not ready: `failing` names the checks.', type: ReadinessDto })
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessDto> {
    const { ready, checks } = await this.readiness.check();
    if (ready) return { status: 'ready', checks };
    void reply.status(503);
    const failing = Object.entries(checks)
      .filter(([, result]) => result !== 'ok' && result !== 'not_configured')
      .map(([name]) => name);
    return { status: 'not_ready', failing, checks };
  }
}
