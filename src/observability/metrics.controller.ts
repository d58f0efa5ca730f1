import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Registry } from 'prom-client';
import { METRICS_REGISTRY } from './metrics.js';

/** Prometheus text exposition. Unauthenticated, like the health probes: restrict it at the network edge. */
@Controller()
@ApiTags('Operations')
export class MetricsController {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {}

  /** Prometheus metrics (text exposition format) */
  @Get('metrics')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Metrics.', schema: { type: 'string' } })
  async metrics(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const body = await this.registry.metrics();
    void reply.header('content-type', this.registry.contentType);
    return body;
  }
}
