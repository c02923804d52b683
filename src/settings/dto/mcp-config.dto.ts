import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsDefined, IsObject, IsOptional, IsString, ValidateIf, ValidateNested } from 'class-validator';
import { MASKED_SECRET } from '../settings.types.js';
import {
  IsStringRecord,
  MAX_SECRET_LENGTH,
  MAX_TEXT_LENGTH,
  MaxItems,
  MaxTextLength,
  MinTextLength,
} from './settings-field.decorators.js';

const MAX_SERVERS_PER_KIND = 100;
const MAX_ARGS = 200;

const isPresent = (_object: object, value: unknown): boolean => value !== undefined;

/** An MCP server reached over SSE or streamable HTTP. */
export class McpRemoteServerDto {
  @ApiProperty({ type: String, example: 'https://mcp.example.com/sse' })
  @IsDefined()
  @IsString()
  @MinTextLength(1)
  @MaxTextLength(MAX_TEXT_LENGTH)
  url: string;

  @ApiPropertyOptional({
    type: String,
    format: 'password',
    nullable: true,
    description: `Stored encrypted. Responses show "${MASKED_SECRET}" for a stored key; posting that mask back keeps the stored key of the server with the same url.`,
  })
  @IsOptional()
  @IsString()
  @MaxTextLength(MAX_SECRET_LENGTH)
  api_key?: string | null;
}

/** An MCP server started as a local process that speaks stdio. */
export class McpStdioServerDto {
  @ApiProperty({ type: String, example: 'fetch' })
  @IsDefined()
  @IsString()
  @MinTextLength(1)
  @MaxTextLength(MAX_TEXT_LENGTH)
  name: string;

  @ApiProperty({ type: String, example: 'uvx' })
  @IsDefined()
  @IsString()
  @MinTextLength(1)
  @MaxTextLength(MAX_TEXT_LENGTH)
  command: string;

  @ApiPropertyOptional({ type: String, isArray: true, default: [], example: ['mcp-server-fetch'] })
  @ValidateIf(isPresent)
  @IsArray()
  @MaxItems(MAX_ARGS)
  @IsString({ each: true })
  args?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    default: {},
    description: 'Environment variables of the process; stored encrypted.',
    example: { LOG_LEVEL: 'info' },
  })
  @ValidateIf(isPresent)
  @IsStringRecord()
  env?: Record<string, string>;
}

/** An optional list of at most MAX_SERVERS_PER_KIND servers of one kind, each validated. */
function ServerList(type: () => new () => object): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type, isArray: true, default: [] }),
    ValidateIf(isPresent),
    IsArray(),
    MaxItems(MAX_SERVERS_PER_KIND),
    IsObject({ each: true }),
    ValidateNested({ each: true }),
    Type(type),
  );
}

export class McpConfigDto {
  @ServerList(() => McpRemoteServerDto)
  sse_servers?: McpRemoteServerDto[];

  @ServerList(() => McpStdioServerDto)
  stdio_servers?: McpStdioServerDto[];

  @ServerList(() => McpRemoteServerDto)
  shttp_servers?: McpRemoteServerDto[];
}
