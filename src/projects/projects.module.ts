import { Module } from '@nestjs/common';
import { CreateProjectHandler } from './commands/create-project.handler.js';
import { ProjectsController } from './projects.controller.js';

@Module({ controllers: [ProjectsController], providers: [CreateProjectHandler] })
export class ProjectsModule {}
