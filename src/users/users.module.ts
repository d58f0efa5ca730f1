import { Module } from '@nestjs/common';
import { RegisterUserHandler } from './commands/register-user.handler.js';

@Module({ providers: [RegisterUserHandler] })
export class UsersModule {}
