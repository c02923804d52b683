import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { EVENT_SOURCES, type EventSource } from '../../event-kinds.js';
import { IsDateOrDateTime } from '../../../common/validation/is-date-or-date-time.js';
import { ToInteger } from '../../../common/validation/query-transforms.js';

export const EVENT_SORT_ORDERS = ['TIMESTAMP', 'TIMESTAMP_DESC'] as const;

/** The reference agent server's event search (`/events/search`), paged by event id. */
export class ReferenceEventSearchQueryDto {
  @ApiPropertyOptional({ description: 'Event id the page starts at' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  page_id?: string;

  @ApiPropertyOptional({ default: 100, minimum: 1, maximum: 100 })
  @ToInteger()
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 100;

  @ApiPropertyOptional({ description: 'Event kind, short (MessageEvent) or fully qualified' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  kind?: string;

  @ApiPropertyOptional({ enum: EVENT_SOURCES })
  @IsOptional()
  @IsIn(EVENT_SOURCES, { message: `source must be one of: ${EVENT_SOURCES.join(', ')}` })
  source?: EventSource;

  @ApiPropertyOptional({ description: 'Substring of the text of messages' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  body?: string;

  @ApiPropertyOptional({ enum: EVENT_SORT_ORDERS, default: 'TIMESTAMP' })
  @IsOptional()
  @IsIn(EVENT_SORT_ORDERS, { message: `sort_order must be one of: ${EVENT_SORT_ORDERS.join(', ')}` })
  sort_order: (typeof EVENT_SORT_ORDERS)[number] = 'TIMESTAMP';

  @ApiPropertyOptional({ example: '2026-11-22T00:00:00Z' })
  @IsOptional()
  @IsDateOrDateTime()
  timestamp__gte?: string;

  @ApiPropertyOptional({ example: '2026-11-23T00:00:00Z' })
  @IsOptional()
  @IsDateOrDateTime()
  timestamp__lt?: string;
}
