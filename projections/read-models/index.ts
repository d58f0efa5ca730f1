import type { Projector } from '../projector.js';
import { alertsProjector } from './alerts.projector.js';
import { apiKeysProjector } from './api-keys.projector.js';
import { auditLogProjector } from './audit-log.projector.js';
import { creditGrantsProjector } from './credit-grants.projector.js';
import { ledgerEntriesProjector } from './ledger-entries.projector.js';
import { organizationsProjector } from './organizations.projector.js';
import { projectsProjector } from './projects.projector.js';
import { usageProjector } from './usage.projector.js';
import { usersProjector } from './users.projector.js';

/** Every read model of the service, applied together under one checkpoint. */
export const READ_MODEL_PROJECTORS: readonly Projector[] = [
  usersProjector,
  organizationsProjector,
  projectsProjector,
  apiKeysProjector,
  usageProjector,
  ledgerEntriesProjector,
  auditLogProjector,
  creditGrantsProjector,
  alertsProjector,
];

export const READ_MODELS_CHECKPOINT = 'read_models';
