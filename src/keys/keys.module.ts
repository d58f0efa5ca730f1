import { Global, Module } from '@nestjs/common';
import { ApiKeysController } from './api-keys.controller.js';
import { CreateKeyHandler } from './commands/create-key.handler.js';
import { RenameKeyHandler } from './commands/rename-key.handler.js';
import { RevokeKeyHandler } from './commands/revoke-key.handler.js';
import { SetKeyBudgetHandler } from './commands/set-key-budget.handler.js';
import { KeyCacheInvalidation } from './key-cache-invalidation.js';
import { KeyLookupService } from './key-lookup.service.js';
import { KeyViews } from './key.views.js';

@Global()
@Module({
  controllers: [ApiKeysController],
  providers: [
    CreateKeyHandler,
    RenameKeyHandler,
    RevokeKeyHandler,
    SetKeyBudgetHandler,
    KeyCacheInvalidation,
    KeyLookupService,
    KeyViews,
  ],
  exports: [KeyLookupService, KeyViews, KeyCacheInvalidation],
})
export class KeysModule {}
