/** How a credit lease is named in a node's journal and in the ids of the charges it pays. */
export const leaseJournalCall = (leaseId: string) => `lease:${leaseId}`;
export const isLeaseJournalCall = (call: string) => call.startsWith('lease:');
export const leaseIdOf = (call: string) => call.slice('lease:'.length);
/** Charge ids of a lease: the lease id (the first 28 characters of a v4 UUID) and 8 hex digits. */
export const chargeIdOf = (leaseId: string, seq: number) => `${leaseId}${seq.toString(16).padStart(8, '0')}`;
