import { Body, Controller, Get, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import {
  ApiBody,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { SettingsNotFoundDto, SettingsRecordDto, SettingsStoredDto, SettingsUpdateDto } from './dto/settings.dto.js';
import { RequireObjectBodyInterceptor } from './require-object-body.interceptor.js';
import { SETTINGS_NOT_FOUND, SettingsService } from './settings.service.js';
import type { SettingsRecord } from './settings.types.js';

const STORE_EXAMPLES = {
  hostedModel: {
    summary: 'A hosted model with its API key',
    value: { llm_model: 'openai/gpt-4o', llm_api_key: 'sk-your-key', max_iterations: 100, confirmation_mode: false },
  },
  localModel: {
    summary: 'A local OpenAI-compatible server (Ollama, vLLM, LiteLLM)',
    value: { llm_model: 'ollama/qwen2.5-coder', llm_base_url: 'http://localhost:11434/v1' },
  },
  mcpServers: {
    summary: 'MCP servers whose tools the agent gets',
    value: {
      mcp_config: {
        shttp_servers: [{ url: 'https://mcp.example.com/mcp', api_key: 'your-mcp-key' }],
        stdio_servers: [{ name: 'fetch', command: 'uvx', args: ['mcp-server-fetch'], env: {} }],
      },
    },
  },
  clearKey: { summary: 'Clear the stored LLM API key', value: { llm_api_key: '' } },
};

@ApiTags('Settings')
@ApiUnauthorizedResponse({ description: 'Missing or unknown session key: {"detail": "Unauthorized"}' })
@Controller('api/settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get()
  @ApiOperation({
    summary: 'Load settings',
    description:
      'The caller\'s settings, every field present. Secret fields are always null (llm_api_key_set and ' +
      'search_api_key_set say whether one is stored), secrets_store is always empty (provider_tokens_set names ' +
      `the providers with a token) and MCP api keys are shown as "**********".`,
  })
  @ApiOkResponse({ type: SettingsRecordDto })
  @ApiNotFoundResponse({ type: SettingsNotFoundDto, description: `The user never saved settings: {"error": "${SETTINGS_NOT_FOUND}"}` })
  load(@CurrentUser() userId: string): Promise<SettingsRecord> {
    return this.settings.getRecord(userId);
  }

  @Post()
  @HttpCode(200)
  @UseInterceptors(RequireObjectBodyInterceptor)
  @ApiOperation({
    summary: 'Store settings',
    description:
      'Every field is optional. Omitted or null llm_api_key, search_api_key, sandbox_api_key, llm_model and ' +
      'llm_base_url keep their stored value, and an empty string clears a secret; every other field takes the ' +
      'sent value or its default. The computed *_set fields are accepted and ignored. Secrets are stored encrypted.',
  })
  @ApiBody({ type: SettingsUpdateDto, examples: STORE_EXAMPLES })
  @ApiOkResponse({ type: SettingsStoredDto })
  @ApiUnprocessableEntityResponse({ description: 'Unknown field, wrong type or a body that is not a JSON object' })
  async store(@CurrentUser() userId: string, @Body() update: SettingsUpdateDto): Promise<SettingsStoredDto> {
    await this.settings.store(userId, update);
    return { message: 'Settings stored' };
  }
}
