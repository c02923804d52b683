import { Column, Entity, PrimaryColumn } from 'typeorm';

export const EXECUTION_STATUSES = ['idle', 'running', 'paused', 'waiting_for_confirmation', 'finished', 'error', 'stuck'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export interface ConfirmationPolicy {
  kind: 'NeverConfirm' | 'AlwaysConfirm' | 'ConfirmRisky';
  threshold?: 'LOW' | 'MEDIUM' | 'HIGH';
  confirm_unknown?: boolean;
}

/** Agent configuration of a conversation; `llm.api_key` lives encrypted in `secrets`, never here. */
export interface ConversationAgentConfig {
  kind: 'Agent';
  llm: { model: string | null; base_url: string | null; usage_id: string; [key: string]: unknown };
  tools: Array<{ name: string; params?: Record<string, unknown> }>;
  mcp_config?: Record<string, unknown> | null;
  [key: string]: unknown;
}

@Entity({ name: 'conversations' })
export class ConversationEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  @Column({ type: 'text', nullable: true })
  title: string | null;

  @Column({ name: 'execution_status', type: 'text' })
  executionStatus: ExecutionStatus;

  @Column({ name: 'confirmation_policy', type: 'jsonb' })
  confirmationPolicy: ConfirmationPolicy;

  @Column({ name: 'max_iterations', type: 'integer' })
  maxIterations: number;

  @Column({ name: 'stuck_detection', type: 'boolean' })
  stuckDetection: boolean;

  @Column({ type: 'jsonb', nullable: true })
  agent: ConversationAgentConfig | null;

  @Column({ type: 'jsonb', nullable: true })
  workspace: { kind: string; working_dir: string } | null;

  @Column({ name: 'security_analyzer', type: 'jsonb', nullable: true })
  securityAnalyzer: Record<string, unknown> | null;

  @Column({ type: 'jsonb' })
  tags: Record<string, string>;

  @Column({ type: 'jsonb' })
  stats: Record<string, unknown>;

  /** Encrypted JSON: the agent's LLM api_key and the conversation's secrets. */
  @Column({ type: 'text', nullable: true })
  secrets: string | null;

  /** Other per-conversation options (log_completions, hook_config, ...). */
  @Column({ type: 'jsonb' })
  options: Record<string, unknown>;

  @Column({ name: 'last_seq', type: 'bigint' })
  lastSeq: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
