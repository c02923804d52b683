import { Body, Controller, Delete, Get, Header, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ConversationId } from '../auth/conversation-access.decorator.js';
import { OwnConversation } from '../auth/own-conversation.decorator.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { normalizeUuid } from '../common/http/uuid.js';
import { RequestValidationException } from '../common/validation/validation-issue.js';
import { SuccessDto } from '../events/dto/requests/send-message.dto.js';
import { ConversationsService } from './conversations.service.js';
import { ConfirmationPolicyDto } from './dto/confirmation-policy.dto.js';
import { CreateConversationDto } from './dto/create-conversation.dto.js';
import {
  BatchGetConversationsQueryDto,
  ConversationFiltersQueryDto,
  SearchConversationsQueryDto,
} from './dto/search-conversations-query.dto.js';
import { SetConfirmationPolicyDto } from './dto/set-confirmation-policy.dto.js';
import { UpdateConversationDto } from './dto/update-conversation.dto.js';

const RECORD_SCHEMA = { type: 'object', additionalProperties: true, example: { id: '3f0e...', title: 'Refactor the parser', execution_status: 'idle' } };

@ApiTags('Conversations')
@Controller('api/conversations')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Post()
  @ApiOperation({ summary: 'Start a conversation; an initial_message starts the agent unless it says run: false' })
  @ApiBody({
    type: CreateConversationDto,
    examples: {
      simple: { value: { title: 'List files', initial_message: { content: [{ type: 'text', text: 'List the files, please.' }], run: false } } },
    },
  })
  @ApiCreatedResponse({ schema: RECORD_SCHEMA })
  async create(
    @CurrentUser() userId: string,
    @Body() dto: CreateConversationDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Record<string, unknown>> {
    const { record, created } = await this.conversations.create(userId, dto);
    response.status(created ? 201 : 200);
    return record;
  }

  @Get('search')
  @ApiOperation({ summary: 'Your conversations, newest first by default' })
  @ApiOkResponse({ schema: { type: 'object', properties: { items: { type: 'array', items: RECORD_SCHEMA }, next_page_id: { type: 'string', nullable: true } } } })
  search(@CurrentUser() userId: string, @Query() query: SearchConversationsQueryDto) {
    return this.conversations.search(userId, query);
  }

  @Get('count')
  // A bare integer is still JSON (the reference's clients parse the body by its content type).
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({ summary: 'How many of your conversations match' })
  @ApiOkResponse({ schema: { type: 'integer' } })
  count(@CurrentUser() userId: string, @Query() query: ConversationFiltersQueryDto): Promise<number> {
    return this.conversations.count(userId, query);
  }

  @Get()
  @ApiOperation({ summary: 'Several conversations by id (?ids=a,b): a record or null for each' })
  batchGet(@CurrentUser() userId: string, @Query() query: BatchGetConversationsQueryDto) {
    const raw = query.ids === undefined ? [] : Array.isArray(query.ids) ? query.ids : [query.ids];
    const ids = raw.flatMap((item) => String(item).split(',')).map((item) => item.trim()).filter(Boolean);
    if (ids.length > 100) throw RequestValidationException.single(['query', 'ids'], 'at most 100 ids', 'too_long');
    const normalized = ids.map((id, index) => {
      const uuid = normalizeUuid(id);
      if (!uuid) throw RequestValidationException.single(['query', 'ids', index], 'Input should be a valid UUID', 'uuid_parsing');
      return uuid;
    });
    return this.conversations.batchGet(userId, normalized);
  }

  @Get(':conversation_id')
  @OwnConversation()
  @ApiOperation({ summary: 'One conversation' })
  @ApiOkResponse({ schema: RECORD_SCHEMA })
  get(@ConversationId() id: string): Promise<Record<string, unknown>> {
    return this.conversations.getRecord(id);
  }

  @Patch(':conversation_id')
  @OwnConversation()
  @ApiOperation({ summary: 'Rename a conversation (owner only)' })
  @ApiBody({ type: UpdateConversationDto, examples: { rename: { value: { title: 'Fix the flaky test' } } } })
  @ApiOkResponse({ type: SuccessDto })
  async update(@ConversationId() id: string, @Body() dto: UpdateConversationDto): Promise<SuccessDto> {
    await this.conversations.rename(id, dto.title);
    return { success: true };
  }

  @Delete(':conversation_id')
  @OwnConversation()
  @ApiOperation({ summary: 'Stop the agent and delete the conversation with its events' })
  @ApiOkResponse({ type: SuccessDto })
  async delete(@ConversationId() id: string): Promise<SuccessDto> {
    await this.conversations.delete(id);
    return { success: true };
  }

  @Post(':conversation_id/confirmation_policy')
  @HttpCode(200)
  @OwnConversation()
  @ApiOperation({ summary: 'Set when the agent asks before acting' })
  @ApiBody({ type: SetConfirmationPolicyDto, examples: { always: { value: { policy: { kind: 'AlwaysConfirm' } } } } })
  @ApiOkResponse({ type: SuccessDto })
  async setConfirmationPolicy(@ConversationId() id: string, @Body() dto: SetConfirmationPolicyDto): Promise<SuccessDto> {
    await this.conversations.setConfirmationPolicy(id, dto.policy as ConfirmationPolicyDto);
    return { success: true };
  }
}
