import { Injectable } from '@nestjs/common';

/**
 * What the events and conversations modules need from the agent without depending on it:
 * "a message asked the agent to run", and "stop before a delete".
 */
export interface ConversationRunner {
  requestRun(conversationId: string): Promise<void>;
  stop(conversationId: string): Promise<void>;
}

/** Filled in by the agent module at start-up; without it `run` is recorded and nothing runs. */
@Injectable()
export class ConversationRunnerHandle implements ConversationRunner {
  private target: ConversationRunner | null = null;

  attach(target: ConversationRunner): void {
    this.target = target;
  }

  async requestRun(conversationId: string): Promise<void> {
    await this.target?.requestRun(conversationId);
  }

  async stop(conversationId: string): Promise<void> {
    await this.target?.stop(conversationId);
  }
}
