import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { EVENT_SOURCES, type EventSource } from '../../event-kinds.js';
import { EVENT_KINDS } from '../event-registry.js';
import { IsDateOrDateTime } from '../../../common/validation/is-date-or-date-time.js';
import { ToBoolean, ToInteger, ToStringArray } from '../../../common/validation/query-transforms.js';

/** Positions are PostgreSQL bigints read as JavaScript numbers: beyond this they are not exact. */
const MAX_POSITION = Number.MAX_SAFE_INTEGER;

const KINDS_MESSAGE = `each value must be an event kind: ${EVENT_KINDS.join(', ')}`;

/** Paging of "search events" plus the same seven filters as the body, for clients that cannot send a GET body. */
export class SearchEventsQueryDto {
  @ApiPropertyOptional({ default: 0, minimum: 0, description: 'First position (inclusive)' })
  @ToInteger()
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_POSITION)
  start_id: number = 0;

  @ApiPropertyOptional({ minimum: 0, description: 'Last position (inclusive)' })
  @ToInteger()
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_POSITION)
  end_id?: number;

  @ApiPropertyOptional({ default: false, description: 'Newest first, from end_id (or the newest) down to start_id' })
  @ToBoolean()
  @IsOptional()
  @IsBoolean()
  reverse: boolean = false;

  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: 100 })
  @ToInteger()
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 20;

  @ApiPropertyOptional({ description: 'Filter (also accepted in the JSON body)' })
  @ToBoolean()
  @IsOptional()
  @IsBoolean()
  exclude_hidden?: boolean;

  @ApiPropertyOptional({ description: 'Filter (also accepted in the JSON body)' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  query?: string;

  @ApiPropertyOptional({ type: [String], description: 'Repeated or comma-separated event kinds' })
  @ToStringArray()
  @IsOptional()
  @IsArray()
  @IsIn(EVENT_KINDS, { each: true, message: KINDS_MESSAGE })
  include_types?: string[];

  @ApiPropertyOptional({ type: [String], description: 'Repeated or comma-separated event kinds' })
  @ToStringArray()
  @IsOptional()
  @IsArray()
  @IsIn(EVENT_KINDS, { each: true, message: KINDS_MESSAGE })
  exclude_types?: string[];

  @ApiPropertyOptional({ enum: EVENT_SOURCES })
  @IsOptional()
  @IsIn(EVENT_SOURCES, { message: `source must be one of: ${EVENT_SOURCES.join(', ')}` })
  source?: EventSource;

  @ApiPropertyOptional({ example: '2026-11-22T00:00:00Z' })
  @IsOptional()
  @IsDateOrDateTime()
  start_date?: string;

  @ApiPropertyOptional({ example: '2026-11-22' })
  @IsOptional()
  @IsDateOrDateTime()
  end_date?: string;
}
