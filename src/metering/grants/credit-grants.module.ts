import { Module } from '@nestjs/common';
import { CreditGrantsController } from './credit-grants.controller.js';

/** Credit grants on the control plane: GET, POST and DELETE /orgs/{org_id}/credit-grants. */
@Module({ controllers: [CreditGrantsController] })
export class CreditGrantsModule {}
