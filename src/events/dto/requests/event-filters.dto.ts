import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { EVENT_SOURCES, type EventSource } from '../../event-kinds.js';
import { EVENT_KINDS } from '../event-registry.js';
import { IsDateOrDateTime } from '../../../common/validation/is-date-or-date-time.js';

const KINDS_MESSAGE = `each value must be an event kind: ${EVENT_KINDS.join(', ')}`;

/** The seven filters of "search events"; sent as a JSON body (even on GET) or as query parameters. */
export class EventFiltersDto {
  @ApiPropertyOptional({ default: false, description: 'Drop bookkeeping events (state updates, logs, tokens, system prompt)' })
  @IsOptional()
  @IsBoolean()
  exclude_hidden?: boolean;

  @ApiPropertyOptional({ nullable: true, description: 'Case-insensitive substring of any text in the event' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  query?: string | null;

  @ApiPropertyOptional({ nullable: true, type: [String], example: ['MessageEvent', 'ActionEvent'] })
  @IsOptional()
  @IsArray()
  @IsIn(EVENT_KINDS, { each: true, message: KINDS_MESSAGE })
  include_types?: string[] | null;

  @ApiPropertyOptional({ nullable: true, type: [String], example: ['ConversationStateUpdateEvent'] })
  @IsOptional()
  @IsArray()
  @IsIn(EVENT_KINDS, { each: true, message: KINDS_MESSAGE })
  exclude_types?: string[] | null;

  @ApiPropertyOptional({ nullable: true, enum: EVENT_SOURCES })
  @IsOptional()
  @IsIn(EVENT_SOURCES, { message: `source must be one of: ${EVENT_SOURCES.join(', ')}` })
  source?: EventSource | null;

  @ApiPropertyOptional({ nullable: true, example: '2026-11-22T00:00:00Z', description: 'ISO 8601 date or date-time, inclusive; no offset means UTC' })
  @IsOptional()
  @IsDateOrDateTime()
  start_date?: string | null;

  @ApiPropertyOptional({ nullable: true, example: '2026-11-22', description: 'ISO 8601 date or date-time, inclusive; no offset means UTC' })
  @IsOptional()
  @IsDateOrDateTime()
  end_date?: string | null;
}

export const EVENT_FILTER_FIELDS = [
  'exclude_hidden',
  'query',
  'include_types',
  'exclude_types',
  'source',
  'start_date',
  'end_date',
] as const;
