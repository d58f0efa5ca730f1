import type { Caller } from '../../metering/pipeline/metering-pipeline.js';
import type { SearchOrigin } from './search-result-log.js';

export function searchOrigin({ key }: Caller, requestId: string): SearchOrigin {
  return { orgId: key.orgId, projectId: key.projectId, keyId: key.keyId, requestId };
}
