import type { ConversationEntity } from './entities/conversation.entity.js';

export const MASKED_SECRET = '**********';

/** The record served for a conversation: our fields plus the reference's ConversationInfo fields. */
export function toConversationRecord(entity: ConversationEntity, hasLlmApiKey: boolean): Record<string, unknown> {
  const agent = entity.agent
    ? { ...entity.agent, llm: { ...entity.agent.llm, api_key: hasLlmApiKey ? MASKED_SECRET : null } }
    : null;
  return {
    id: entity.id,
    title: entity.title,
    owner: entity.ownerId,
    execution_status: entity.executionStatus,
    confirmation_policy: entity.confirmationPolicy,
    max_iterations: entity.maxIterations,
    stuck_detection: entity.stuckDetection,
    created_at: entity.createdAt.toISOString(),
    updated_at: entity.updatedAt.toISOString(),
    event_count: Number(entity.lastSeq) + 1,
    stats: entity.stats,
    agent,
    workspace: entity.workspace,
    security_analyzer: entity.securityAnalyzer,
    tags: entity.tags,
    llm_model: entity.agent?.llm.model ?? null,
    log_completions: entity.options.log_completions === true,
    metrics: null,
    activated_knowledge_skills: [],
    blocked_actions: {},
    blocked_messages: {},
    agent_state: {},
    // Where the reference keeps a conversation's state (its clients read it, and refuse null); ours is in
    // PostgreSQL, so this names it in the reference's layout and is no host path.
    persistence_dir: `workspace/conversations/${entity.id.replace(/-/g, '')}`,
  };
}
