import { Module } from '@nestjs/common';
import { CreateProjectHandler } from './commands/create-project.handler.js';
import { RenameProjectHandler } from './commands/rename-project.handler.js';
import { SetProjectBudgetHandler } from './commands/set-project-budget.handler.js';
import { ProjectsController } from './projects.controller.js';

@Module({
  controllers: [ProjectsController],
  providers: [CreateProjectHandler, RenameProjectHandler, SetProjectBudgetHandler],
})
export class ProjectsModule {}
