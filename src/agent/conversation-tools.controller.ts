import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ConversationId } from '../auth/conversation-access.decorator.js';
import { OwnConversation } from '../auth/own-conversation.decorator.js';
import { SuccessDto } from '../events/dto/requests/send-message.dto.js';
import { AskAgentService } from './ask-agent.service.js';
import { ConversationSecretsService } from './conversation-secrets.service.js';
import { toRequestedLlm } from './conversation-llm.js';
import {
  AskAgentDto,
  AskAgentResponseDto,
  GenerateTitleDto,
  GenerateTitleResponseDto,
  SetSecurityAnalyzerDto,
  UpdateSecretsDto,
} from './dto/conversation-tools.dto.js';
import { TitleGeneratorService } from './title-generator.service.js';

/** The reference's per-conversation extras: a side question, a generated title, secrets, the security analyzer. */
@ApiTags('Conversations')
@OwnConversation()
@Controller('api/conversations/:conversation_id')
export class ConversationToolsController {
  constructor(
    private readonly askAgent: AskAgentService,
    private readonly titles: TitleGeneratorService,
    private readonly secrets: ConversationSecretsService,
  ) {}

  @Post('ask_agent')
  @HttpCode(200)
  @ApiOperation({ summary: 'Ask the agent a question about the conversation, without changing it (no event is added)' })
  @ApiBody({ type: AskAgentDto, examples: { ask: { value: { question: 'What is left to do?' } } } })
  @ApiOkResponse({ type: AskAgentResponseDto })
  @ApiConflictResponse({ description: 'No LLM is configured' })
  async ask(@ConversationId() id: string, @Body() dto: AskAgentDto): Promise<AskAgentResponseDto> {
    return { response: await this.askAgent.ask(id, dto.question) };
  }

  @Post('generate_title')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Name the conversation from its first message (by the LLM, else the message cut to max_length) and store the title',
  })
  @ApiBody({ type: GenerateTitleDto, examples: { short: { value: { max_length: 40 } } } })
  @ApiOkResponse({ type: GenerateTitleResponseDto })
  @ApiConflictResponse({ description: 'The conversation has no user message yet' })
  async generateTitle(@ConversationId() id: string, @Body() dto: GenerateTitleDto): Promise<GenerateTitleResponseDto> {
    return { title: await this.titles.generate(id, dto.max_length, toRequestedLlm(dto.llm)) };
  }

  @Post('secrets')
  @HttpCode(200)
  @ApiOperation({ summary: 'Add or replace secrets of the conversation (stored encrypted, never served back)' })
  @ApiBody({ type: UpdateSecretsDto, examples: { token: { value: { secrets: { API_TOKEN: { kind: 'StaticSecret', value: 'tok-123' } } } } } })
  @ApiOkResponse({ type: SuccessDto })
  async updateSecrets(@ConversationId() id: string, @Body() dto: UpdateSecretsDto): Promise<SuccessDto> {
    await this.secrets.merge(id, dto.secrets);
    return { success: true };
  }

  @Post('security_analyzer')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set (or with null remove) the security analyzer; appends a ConversationStateUpdateEvent' })
  @ApiBody({ type: SetSecurityAnalyzerDto, examples: { llm: { value: { security_analyzer: { kind: 'LLMSecurityAnalyzer' } } }, none: { value: { security_analyzer: null } } } })
  @ApiOkResponse({ type: SuccessDto })
  async setSecurityAnalyzer(@ConversationId() id: string, @Body() dto: SetSecurityAnalyzerDto): Promise<SuccessDto> {
    await this.secrets.setSecurityAnalyzer(id, dto.security_analyzer);
    return { success: true };
  }
}
