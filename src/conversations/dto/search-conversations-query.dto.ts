import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ToInteger } from '../../common/validation/query-transforms.js';
import { EXECUTION_STATUSES, type ExecutionStatus } from '../entities/conversation.entity.js';

export const CONVERSATION_SORT_ORDERS = ['CREATED_AT', 'CREATED_AT_DESC', 'UPDATED_AT', 'UPDATED_AT_DESC'] as const;
export type ConversationSortOrder = (typeof CONVERSATION_SORT_ORDERS)[number];
const STATUS_MESSAGE = `must be one of: ${EXECUTION_STATUSES.join(', ')}`;

export class ConversationFiltersQueryDto {
  @ApiPropertyOptional({ description: 'Case-insensitive substring of the title' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  title__contains?: string;

  @ApiPropertyOptional({ enum: EXECUTION_STATUSES })
  @IsOptional()
  @IsIn(EXECUTION_STATUSES, { message: `execution_status ${STATUS_MESSAGE}` })
  execution_status?: ExecutionStatus;

  @ApiPropertyOptional({ enum: EXECUTION_STATUSES, description: 'Same as execution_status (the reference name)' })
  @IsOptional()
  @IsIn(EXECUTION_STATUSES, { message: `status ${STATUS_MESSAGE}` })
  status?: ExecutionStatus;
}

export class SearchConversationsQueryDto extends ConversationFiltersQueryDto {
  @ApiPropertyOptional({ description: 'next_page_id of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  page_id?: string;

  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: 100 })
  @ToInteger()
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 20;

  @ApiPropertyOptional({ enum: CONVERSATION_SORT_ORDERS, default: 'CREATED_AT_DESC' })
  @IsOptional()
  @IsIn(CONVERSATION_SORT_ORDERS, { message: `sort_order must be one of: ${CONVERSATION_SORT_ORDERS.join(', ')}` })
  sort_order: ConversationSortOrder = 'CREATED_AT_DESC';
}

export class BatchGetConversationsQueryDto {
  @ApiPropertyOptional({ type: [String], description: 'Conversation ids, repeated or comma-separated' })
  @IsOptional()
  ids?: string | string[];
}
