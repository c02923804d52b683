import { Body, Controller, Get, Header, Headers, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ConversationId } from '../auth/conversation-access.decorator.js';
import { OwnConversation } from '../auth/own-conversation.decorator.js';
import { RequestValidationException } from '../common/validation/validation-issue.js';
import { eventExtraModels, eventUnionSchema } from './dto/event-registry.js';
import { CountEventsQueryDto } from './dto/requests/count-events-query.dto.js';
import { EventFiltersDto } from './dto/requests/event-filters.dto.js';
import { ReferenceEventSearchQueryDto } from './dto/requests/reference-search-query.dto.js';
import { SearchEventsQueryDto } from './dto/requests/search-events-query.dto.js';
import { SendMessageDto, SuccessDto } from './dto/requests/send-message.dto.js';
import { eventPageSchema, referenceEventPageSchema } from './dto/responses/event-page.schema.js';
import { EventsService } from './events.service.js';

const MAX_IDEMPOTENCY_KEY = 200;

@ApiTags('Events')
@ApiExtraModels(...eventExtraModels)
@OwnConversation()
@Controller('api/conversations/:conversation_id/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get('search')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({ summary: 'Search events, paged by event id (the reference agent server dialect)' })
  @ApiOkResponse({ schema: referenceEventPageSchema() })
  searchByPageId(@ConversationId() conversationId: string, @Query() query: ReferenceEventSearchQueryDto): Promise<string> {
    return this.events.searchByPageId(conversationId, query);
  }

  @Get('count')
  // A bare integer is still JSON (the reference's clients parse the body by its content type).
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({
    summary: 'Count the events matching the filters of either search route',
    description: 'Filters as query parameters; the seven filters of search may also come as a JSON body, not both ways.',
  })
  @ApiBody({ type: EventFiltersDto, required: false })
  @ApiOkResponse({ schema: { type: 'integer', example: 42 } })
  count(
    @ConversationId() conversationId: string,
    @Query() query: CountEventsQueryDto,
    @Body() filters: EventFiltersDto,
  ): Promise<number> {
    return this.events.count(conversationId, query as never, filters);
  }

  @Get()
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({
    summary: 'Search the events of a conversation by position',
    description:
      'Filters come as a JSON body (even on GET) or as query parameters, not both. Positions are 0, 1, 2, ... ' +
      'start_id and end_id are inclusive; reverse=true walks from end_id (or the newest) down to start_id.',
  })
  @ApiBody({ type: EventFiltersDto, required: false, examples: { messagesOnly: { value: { include_types: ['MessageEvent'], query: 'hello' } } } })
  @ApiOkResponse({ schema: eventPageSchema() })
  search(
    @ConversationId() conversationId: string,
    @Query() query: SearchEventsQueryDto,
    @Body() filters: EventFiltersDto,
  ): Promise<string> {
    return this.events.search(conversationId, query, filters);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a user message (appends a MessageEvent); run: true starts the agent' })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'A retried send with the same key appends the message once' })
  @ApiBody({
    type: SendMessageDto,
    examples: { hello: { value: { role: 'user', content: [{ type: 'text', text: 'List the files, please.' }], run: false } } },
  })
  @ApiOkResponse({ type: SuccessDto })
  async send(
    @ConversationId() conversationId: string,
    @Body() message: SendMessageDto,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<SuccessDto> {
    if (idempotencyKey !== undefined && (idempotencyKey.length === 0 || idempotencyKey.length > MAX_IDEMPOTENCY_KEY)) {
      throw RequestValidationException.single(
        ['header', 'idempotency-key'],
        `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters`,
        'string_too_long',
      );
    }
    await this.events.sendMessage(conversationId, message, idempotencyKey);
    return { success: true };
  }

  @Get(':event_id')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({ summary: 'Get one event' })
  @ApiOkResponse({ schema: eventUnionSchema() })
  @ApiNotFoundResponse({ description: 'Event not found' })
  get(@ConversationId() conversationId: string, @Param('event_id') eventId: string): Promise<string> {
    return this.events.getEventJson(conversationId, eventId);
  }
}
