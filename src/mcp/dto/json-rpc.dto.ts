import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

const ID = { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] };

@ApiSchema({ name: 'JsonRpcErrorObject' })
export class JsonRpcErrorObjectDto {
  /**
   * -32700 parse error, -32600 invalid request, -32601 unknown method, -32602 unknown tool, -32603 internal error,
   * -32001 unauthorized, -32000 other transport errors. (Invalid tool arguments are tool results with isError.)
   */
  @ApiProperty({ type: 'integer' })
  code!: number;

  /** What went wrong. */
  message!: string;

  @ApiProperty({ required: false })
  data?: unknown;
}

/** A JSON-RPC 2.0 error response. */
@ApiSchema({ name: 'JsonRpcError' })
export class JsonRpcErrorDto {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc!: '2.0';

  @ApiProperty(ID)
  id!: string | number | null;

  error!: JsonRpcErrorObjectDto;
}

/**
 * A JSON-RPC 2.0 message of the Model Context Protocol: a request, a notification (no id) or a response. A batch
 * (an array of them) is accepted too.
 */
@ApiSchema({ name: 'JsonRpcMessage' })
export class JsonRpcMessageDto {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc!: '2.0';

  /** Absent for a notification. */
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'integer' }], required: false })
  id?: string | number;

  /** initialize, notifications/initialized, ping, tools/list, tools/call, … */
  method!: string;

  /** tools/call: {name: "search" | "extract", arguments: {…}}. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  params?: Record<string, unknown>;
}

/** A JSON-RPC 2.0 response (an array of them for a batch). */
@ApiSchema({ name: 'JsonRpcResponse' })
export class JsonRpcResponseDto {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc!: '2.0';

  @ApiProperty(ID)
  id!: string | number | null;

  /** The result (tools/call: content, structuredContent, isError). */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  result?: Record<string, unknown>;

  error?: JsonRpcErrorObjectDto;
}
