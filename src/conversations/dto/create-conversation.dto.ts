import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  Allow,
  IsBoolean,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { SendMessageDto } from '../../events/dto/requests/send-message.dto.js';
import { ConfirmationPolicyDto } from './confirmation-policy.dto.js';

/** conversations.max_iterations is a PostgreSQL integer. */
export const MAX_ITERATIONS_LIMIT = 2_147_483_647;

/** The first message; unlike a later send, it starts the agent unless it says run: false. */
export class InitialMessageDto extends SendMessageDto {
  @ApiPropertyOptional({ default: true })
  override run: boolean = true;
}

export class WorkspaceDto {
  @ApiPropertyOptional({ example: 'LocalWorkspace' })
  @IsOptional()
  @IsString()
  kind?: string;

  // The reference TypeScript client sends `{type: "local", working_dir}`; the reference server ignores it.
  @ApiPropertyOptional({ example: 'local', description: 'Accepted from the reference TypeScript client and ignored' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  type?: string;

  @ApiPropertyOptional({ example: 'project', description: 'A directory inside your own workspace root' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  working_dir?: string;
}

/**
 * Our own fields plus the reference agent server's StartConversationRequest, so its clients
 * work unchanged. `agent` is the reference's Agent object; its `llm` overrides the owner's settings.
 */
export class CreateConversationDto {
  @ApiPropertyOptional({ maxLength: 200, example: 'Refactor the parser' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsOptional()
  @IsString()
  @Length(1, 200, { message: 'title must be 1 to 200 characters, not only whitespace' })
  title?: string | null;

  @ApiPropertyOptional({ type: InitialMessageDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => InitialMessageDto)
  initial_message?: InitialMessageDto | null;

  @ApiPropertyOptional({ type: ConfirmationPolicyDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ConfirmationPolicyDto)
  confirmation_policy?: ConfirmationPolicyDto;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_ITERATIONS_LIMIT, example: 100 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_ITERATIONS_LIMIT)
  max_iterations?: number;

  @ApiPropertyOptional({ example: 'openai/gpt-4o', description: 'Overrides the model of your settings' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  llm_model?: string;

  @ApiPropertyOptional({ description: 'The reference Agent object: {kind, llm: {model, api_key, base_url, ...}, tools, mcp_config, ...}' })
  @IsOptional()
  @IsObject()
  agent?: Record<string, unknown>;

  @ApiPropertyOptional({ type: WorkspaceDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => WorkspaceDto)
  workspace?: WorkspaceDto;

  @ApiPropertyOptional({ format: 'uuid', description: 'Reuse this id: 201 when new, 200 when it is already yours' })
  @IsOptional()
  @IsUUID('all')
  conversation_id?: string;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  stuck_detection?: boolean;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsObject()
  security_analyzer?: Record<string, unknown> | null;

  @ApiPropertyOptional({ description: 'Secrets available to the agent (stored encrypted)' })
  @IsOptional()
  @IsObject()
  secrets?: Record<string, unknown>;

  @ApiPropertyOptional({ example: { team: 'core' } })
  @IsOptional()
  @IsObject()
  tags?: Record<string, string>;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsObject()
  hook_config?: Record<string, unknown> | null;

  @ApiPropertyOptional({ default: false, description: 'Stream LLMCompletionLogEvents' })
  @IsOptional()
  @IsBoolean()
  log_completions?: boolean;

  // Accepted from reference clients and ignored: the session key decides the owner; tools are ours.
  @Allow()
  user_id?: unknown;
  @Allow()
  tool_module_qualnames?: unknown;
  @Allow()
  plugins?: unknown;
}
