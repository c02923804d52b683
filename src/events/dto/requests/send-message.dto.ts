import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMinSize, IsBoolean, IsIn, ValidateIf } from 'class-validator';

/** Optional but, when given, not null. */
const IfPresent = () => ValidateIf((_object, value) => value !== undefined);
import { CONTENT_ITEM_UNION, type ContentItem } from '../content.dto.js';
import { UnionField } from '../dto-field.decorators.js';

/** A user's message to the conversation: appended as a MessageEvent with source "user". */
export class SendMessageDto {
  @ApiPropertyOptional({ enum: ['user'], default: 'user', description: 'Only user messages can be sent' })
  @IfPresent()
  @IsIn(['user'], { message: 'role must be "user": only user messages can be sent to a conversation' })
  role: 'user' = 'user';

  @UnionField(CONTENT_ITEM_UNION, { isArray: true, required: true, description: 'Text and image items; at least one' })
  @ArrayMinSize(1, { message: 'content needs at least one item' })
  content: ContentItem[];

  @ApiPropertyOptional({ default: false, description: 'Start the agent if it is not running' })
  @IfPresent()
  @IsBoolean()
  run: boolean = false;
}

export class SuccessDto {
  @ApiProperty({ example: true })
  success: boolean;
}
