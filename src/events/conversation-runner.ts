/**
 * What the events module needs from the agent without depending on it: "a message asked the
 * agent to run". The agent module provides it; without it, `run` is recorded and nothing runs.
 */
export interface ConversationRunner {
  requestRun(conversationId: string): Promise<void>;
}

export const CONVERSATION_RUNNER = Symbol('CONVERSATION_RUNNER');
