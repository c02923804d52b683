import { Module, type OnModuleInit } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ConversationsModule } from '../conversations/conversations.module.js';
import { ConversationRunnerHandle } from '../events/conversation-runner.js';
import { EventsModule } from '../events/events.module.js';
import { SettingsModule } from '../settings/settings.module.js';
import { AgentController } from './agent.controller.js';
import { AgentRunnerService } from './agent-runner.service.js';
import { AskAgentService } from './ask-agent.service.js';
import { ConversationLlmResolver } from './conversation-llm.js';
import { ConversationSecretsService } from './conversation-secrets.service.js';
import { ConversationToolsController } from './conversation-tools.controller.js';
import { RunLeaseService } from './run-lease.service.js';
import { TitleGeneratorService } from './title-generator.service.js';

@Module({
  imports: [AuthModule, EventsModule, ConversationsModule, SettingsModule],
  controllers: [AgentController, ConversationToolsController],
  providers: [
    RunLeaseService,
    AgentRunnerService,
    ConversationLlmResolver,
    AskAgentService,
    TitleGeneratorService,
    ConversationSecretsService,
  ],
})
export class AgentModule implements OnModuleInit {
  constructor(
    private readonly handle: ConversationRunnerHandle,
    private readonly runner: AgentRunnerService,
  ) {}

  onModuleInit(): void {
    this.handle.attach(this.runner);
  }
}
