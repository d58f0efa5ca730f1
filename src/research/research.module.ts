import { Module } from '@nestjs/common';
import { SearchModule } from '../search/search.module.js';
import { ResearchJobsRepository } from './jobs/research-jobs.repository.js';
import { ResearchRunner } from './jobs/research-runner.js';
import { ResearchController } from './research.controller.js';
import { ResearchService } from './research.service.js';
import { ResearchTask } from './research-task.js';
import { ProgressBus } from './stream/progress-bus.js';
import { ResearchStreamService } from './stream/research-stream.service.js';

/**
 * Research tasks (POST /research, GET /research/{request_id}): durable jobs in research_jobs, run in the background
 * by whichever node claims them, metered as deferred calls (reserved at submission, charged once on completion).
 * Exports the service and the jobs for the MCP research tool (offered when MCP_TOOLS names research).
 */
@Module({
  imports: [SearchModule],
  controllers: [ResearchController],
  providers: [
    ResearchJobsRepository,
    ResearchRunner,
    ResearchTask,
    ResearchService,
    ProgressBus,
    ResearchStreamService,
  ],
  exports: [ResearchService, ResearchJobsRepository],
})
export class ResearchModule {}
