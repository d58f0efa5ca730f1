/**
 * What a request id may be: ours are UUIDs; a client's own X-Request-Id is kept when it matches. An MCP batch's tool
 * calls are charged as `<request id>:<n>`.
 */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const REQUEST_ID_MESSAGE = 'request_id must be a request id (X-Request-Id): 1 to 128 of A-Z a-z 0-9 . _ : -';
