import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { McpConfigDto } from './mcp-config.dto.js';
import { SecretsStoreDto } from './secrets-store.dto.js';
import {
  DefaultedBoolean,
  NullableBoolean,
  NullableInteger,
  NullableNumber,
  NullableString,
  SecretString,
} from './settings-field.decorators.js';

const KEPT_WHEN_OMITTED = 'Omitted or null keeps the stored value.';
const SECRET_RULES = `Write-only, stored encrypted; always null in responses. ${KEPT_WHEN_OMITTED} An empty string clears it.`;
const COMPUTED = 'Computed by the service; accepted and ignored when saving, so a client can post back what it read.';

/**
 * The body of POST /api/settings. Every field is optional: an omitted field takes its default,
 * except the secrets, llm_model and llm_base_url, which keep their stored value.
 */
export class SettingsUpdateDto {
  @NullableString({ description: 'Interface language', example: 'en' })
  language?: string | null;

  @NullableString({ description: 'Agent name', example: 'CodeActAgent' })
  agent?: string | null;

  @NullableInteger({ minimum: 1, maximum: 1_000_000, description: 'Steps allowed per run (conversations default to 500 when unset)', example: 100 })
  max_iterations?: number | null;

  @NullableString({ example: 'llm' })
  security_analyzer?: string | null;

  @NullableBoolean({ description: 'true: new conversations ask before each action (AlwaysConfirm)' })
  confirmation_mode?: boolean | null;

  @NullableString({
    description: `provider/model (e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5); a bare name is an OpenAI-compatible model. ${KEPT_WHEN_OMITTED}`,
    example: 'openai/gpt-4o',
  })
  llm_model?: string | null;

  @SecretString({ description: `API key of the LLM provider. ${SECRET_RULES}` })
  llm_api_key?: string | null;

  @NullableString({
    description: `OpenAI-compatible endpoint (vLLM, Ollama, LiteLLM, OpenRouter...). ${KEPT_WHEN_OMITTED}`,
    example: 'http://localhost:11434/v1',
  })
  llm_base_url?: string | null;

  @NullableInteger({ minimum: 1 })
  remote_runtime_resource_factor?: number | null;

  @ApiPropertyOptional({ type: () => SecretsStoreDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SecretsStoreDto)
  secrets_store?: SecretsStoreDto | null;

  @DefaultedBoolean(true, { description: 'Summarise old history when the context grows long' })
  enable_default_condenser?: boolean;

  @DefaultedBoolean(false)
  enable_sound_notifications?: boolean;

  @DefaultedBoolean(true)
  enable_proactive_conversation_starters?: boolean;

  @DefaultedBoolean(true)
  enable_solvability_analysis?: boolean;

  @NullableBoolean()
  user_consents_to_analytics?: boolean | null;

  @NullableString()
  sandbox_base_container_image?: string | null;

  @NullableString()
  sandbox_runtime_container_image?: string | null;

  @ApiPropertyOptional({
    type: () => McpConfigDto,
    nullable: true,
    description: 'MCP servers whose tools the agent gets. Stored encrypted; api keys are masked in responses.',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => McpConfigDto)
  mcp_config?: McpConfigDto | null;

  @SecretString({ description: `API key of the web search tool. ${SECRET_RULES}` })
  search_api_key?: string | null;

  @SecretString({ description: SECRET_RULES })
  sandbox_api_key?: string | null;

  @NullableNumber({ minimum: 0, description: 'USD a run may spend before it stops', example: 5 })
  max_budget_per_task?: number | null;

  @NullableString({ example: 'alice@example.com' })
  email?: string | null;

  @NullableBoolean()
  email_verified?: boolean | null;

  @NullableString({ example: 'Alice' })
  git_user_name?: string | null;

  @NullableString({ example: 'alice@example.com' })
  git_user_email?: string | null;

  @ApiPropertyOptional({ type: Boolean, nullable: true, description: COMPUTED })
  @IsOptional()
  @IsBoolean()
  llm_api_key_set?: boolean | null;

  @ApiPropertyOptional({ type: Boolean, nullable: true, description: COMPUTED })
  @IsOptional()
  @IsBoolean()
  search_api_key_set?: boolean | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', nullable: true }, nullable: true, description: COMPUTED })
  @IsOptional()
  @IsObject()
  provider_tokens_set?: Record<string, string | null> | null;
}

/** The settings record GET /api/settings serves; every field is present in the response. */
export class SettingsRecordDto extends SettingsUpdateDto {
  @ApiProperty({ type: Boolean, required: true, description: 'Whether a non-empty llm_api_key is stored' })
  override llm_api_key_set: boolean;

  @ApiProperty({ type: Boolean, default: false, description: 'Whether a non-empty search_api_key is stored' })
  override search_api_key_set: boolean;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', nullable: true },
    nullable: true,
    description: 'The git providers that have a token, each mapped to its host (null: the provider default)',
    example: { github: null },
  })
  override provider_tokens_set: Record<string, string | null>;
}

export class SettingsStoredDto {
  @ApiProperty({ example: 'Settings stored' })
  message: string;
}

export class SettingsNotFoundDto {
  @ApiProperty({ example: 'Settings not found' })
  error: string;
}
