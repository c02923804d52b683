import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ConversationId } from '../auth/conversation-access.decorator.js';
import { OwnConversation } from '../auth/own-conversation.decorator.js';
import { buildEvent } from '../events/dto/event-registry.js';
import { SuccessDto } from '../events/dto/requests/send-message.dto.js';
import { EventStoreService } from '../events/event-store.service.js';
import { AgentRunnerService } from './agent-runner.service.js';
import { ConfirmationResponseDto } from './dto/confirmation-response.dto.js';
import { finalResponseText } from './final-response.js';

@ApiTags('Agent')
@OwnConversation()
@Controller('api/conversations/:conversation_id')
export class AgentController {
  constructor(
    private readonly runner: AgentRunnerService,
    private readonly store: EventStoreService,
  ) {}

  @Post('run')
  @HttpCode(200)
  @ApiOperation({ summary: 'Start the agent on the conversation' })
  @ApiOkResponse({ type: SuccessDto })
  @ApiConflictResponse({ description: 'Already running, or waiting for confirmation' })
  async run(@ConversationId() id: string): Promise<SuccessDto> {
    await this.runner.run(id);
    return { success: true };
  }

  @Post('pause')
  @HttpCode(200)
  @ApiOperation({ summary: 'Pause: the agent stops after its current step (appends a PauseEvent)' })
  @ApiOkResponse({ type: SuccessDto })
  async pause(@ConversationId() id: string): Promise<SuccessDto> {
    await this.runner.pause(id);
    return { success: true };
  }

  @Post('events/respond_to_confirmation')
  @HttpCode(200)
  @ApiOperation({ summary: 'Accept or reject the actions waiting for confirmation' })
  @ApiBody({ type: ConfirmationResponseDto, examples: { accept: { value: { accept: true } }, reject: { value: { accept: false, reason: 'Too risky' } } } })
  @ApiOkResponse({ type: SuccessDto })
  @ApiConflictResponse({ description: 'Nothing is waiting for confirmation' })
  async respondToConfirmation(@ConversationId() id: string, @Body() dto: ConfirmationResponseDto): Promise<SuccessDto> {
    await this.runner.respondToConfirmation(id, dto.accept, dto.reason);
    return { success: true };
  }

  @Post('condense')
  @HttpCode(200)
  @ApiOperation({ summary: 'Ask for a condensation of the history at the next step (appends a CondensationRequest)' })
  @ApiOkResponse({ type: SuccessDto })
  async condense(@ConversationId() id: string): Promise<SuccessDto> {
    await this.store.append(id, buildEvent('CondensationRequest', {}) as unknown as Record<string, unknown>);
    return { success: true };
  }

  @Get('agent_final_response')
  @ApiOperation({ summary: "The agent's last answer: its final message or the message it finished with" })
  @ApiOkResponse({ schema: { type: 'object', properties: { response: { type: 'string' } } } })
  async finalResponse(@ConversationId() id: string): Promise<{ response: string }> {
    return { response: finalResponseText(await this.store.all(id)) };
  }
}
