import { ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { NOT_OWNER_DETAIL } from '../auth/conversation-owner.guard.js';
import { ConversationOwners } from '../auth/conversation-owners.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { RequestValidationException } from '../common/validation/validation-issue.js';
import { ConversationRunnerHandle } from '../events/conversation-runner.js';
import { buildEvent } from '../events/dto/event-registry.js';
import { EventStoreService, type ConversationColumnChanges } from '../events/event-store.service.js';
import { EventsService } from '../events/events.service.js';
import { SecretCipher } from '../settings/secret-cipher.js';
import { SettingsService } from '../settings/settings.service.js';
import { MASKED_SECRET, toConversationRecord } from './conversation-record.js';
import { toSecretSources, toSecurityAnalyzer } from './conversation-secret-sources.js';
import { MAX_ITERATIONS_LIMIT, type CreateConversationDto } from './dto/create-conversation.dto.js';
import type { ConversationFiltersQueryDto, SearchConversationsQueryDto } from './dto/search-conversations-query.dto.js';
import {
  ConversationEntity,
  type ConfirmationPolicy,
  type ConversationAgentConfig,
  type ExecutionStatus,
} from './entities/conversation.entity.js';
import { decodePageToken, encodePageToken, sortSpec } from './conversation-paging.js';
import { resolveWorkingDir } from './workspace-path.js';

export const DEFAULT_MAX_ITERATIONS = 500;
export const DEFAULT_TOOLS = ['terminal', 'file_editor', 'task_tracker', 'think', 'finish', 'glob', 'grep'];

export interface ConversationSecrets {
  llm_api_key?: string | null;
  secrets?: Record<string, unknown>;
  /** MCP servers may carry api keys and credentials in env: kept encrypted, served masked. */
  mcp_config?: Record<string, unknown> | null;
  security_analyzer_api_key?: string | null;
}

@Injectable()
export class ConversationsService {
  constructor(
    @InjectRepository(ConversationEntity) private readonly conversations: Repository<ConversationEntity>,
    private readonly store: EventStoreService,
    private readonly events: EventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runner: ConversationRunnerHandle,
    private readonly settings: SettingsService,
    private readonly owners: ConversationOwners,
    private readonly cipher: SecretCipher,
  ) {}

  /** Creates a conversation (or returns the caller's existing one with that id: created false). */
  async create(userId: string, dto: CreateConversationDto): Promise<{ record: Record<string, unknown>; created: boolean }> {
    const id = dto.conversation_id ? dto.conversation_id.toLowerCase() : randomUUID();
    if (dto.conversation_id) {
      const existing = await this.conversations.findOneBy({ id });
      if (existing) {
        if (existing.ownerId !== userId) throw new ForbiddenException({ detail: NOT_OWNER_DETAIL });
        return { record: this.toRecord(existing), created: false };
      }
    }
    const { agent, llmApiKey } = agentConfigFrom(dto);
    const userDefaults = await this.settings.resolveForAgent(userId);
    const confirmationPolicy: ConfirmationPolicy = dto.confirmation_policy
      ? normalizePolicy(dto.confirmation_policy)
      : userDefaults?.confirmationMode
        ? { kind: 'AlwaysConfirm' }
        : { kind: 'NeverConfirm' };
    const secrets: ConversationSecrets = {};
    if (llmApiKey) secrets.llm_api_key = llmApiKey;
    if (dto.secrets && Object.keys(dto.secrets).length) secrets.secrets = toSecretSources(dto.secrets);
    let securityAnalyzer: Record<string, unknown> | null = null;
    if (dto.security_analyzer !== undefined) {
      const choice = toSecurityAnalyzer(dto.security_analyzer, MASKED_SECRET);
      securityAnalyzer = choice.analyzer;
      if (choice.apiKey) secrets.security_analyzer_api_key = choice.apiKey;
    }
    if (agent.mcp_config) {
      secrets.mcp_config = agent.mcp_config;
      agent.mcp_config = maskMcpConfig(agent.mcp_config);
    }
    const now = new Date();
    const entity = this.conversations.create({
      id,
      ownerId: userId,
      title: dto.title ?? null,
      executionStatus: 'idle',
      confirmationPolicy,
      // Settings do not bound max_iterations; the column is a 32-bit integer.
      maxIterations: Math.min(dto.max_iterations ?? userDefaults?.maxIterations ?? DEFAULT_MAX_ITERATIONS, MAX_ITERATIONS_LIMIT),
      stuckDetection: dto.stuck_detection ?? true,
      agent,
      workspace: {
        kind: 'LocalWorkspace',
        working_dir: resolveWorkingDir(this.config.workspaceRoot, userId, id, dto.workspace?.working_dir),
      },
      securityAnalyzer,
      tags: validTags(dto.tags),
      stats: {},
      secrets: this.encryptSecrets(id, secrets),
      options: { log_completions: dto.log_completions ?? false, hook_config: dto.hook_config ?? null },
      lastSeq: '-1',
      createdAt: now,
      updatedAt: now,
    });
    await this.conversations.save(entity);
    if (dto.initial_message) {
      await this.events.sendMessage(id, { ...dto.initial_message, run: false });
      if (dto.initial_message.run) await this.runner.requestRun(id);
    }
    return { record: await this.getRecord(id), created: true };
  }

  async find(id: string): Promise<ConversationEntity> {
    const entity = await this.conversations.findOneBy({ id });
    if (!entity) throw new NotFoundException({ detail: `Conversation not found: ${id}` });
    return entity;
  }

  async getRecord(id: string): Promise<Record<string, unknown>> {
    return this.toRecord(await this.find(id));
  }

  toRecord(entity: ConversationEntity): Record<string, unknown> {
    return toConversationRecord(entity, Boolean(entity.secrets && this.secretsOf(entity).llm_api_key));
  }

  secretsOf(entity: ConversationEntity): ConversationSecrets {
    return this.decryptSecrets(entity.id, entity.secrets);
  }

  /** Read, change and write the encrypted secrets under a row lock, so concurrent updates all land. */
  async updateSecrets(id: string, change: (stored: ConversationSecrets) => ConversationSecrets): Promise<void> {
    await this.conversations.manager.transaction(async (manager) => {
      const rows: Array<{ secrets: string | null }> = await manager.query('SELECT secrets FROM conversations WHERE id = $1 FOR UPDATE', [id]);
      if (rows.length === 0) throw new NotFoundException({ detail: `Conversation not found: ${id}` });
      const changed = change(this.decryptSecrets(id, rows[0].secrets));
      await manager.query('UPDATE conversations SET secrets = $2 WHERE id = $1', [id, this.encryptSecrets(id, changed)]);
    });
  }

  // Each conversation's ciphertext is bound to its id, so secrets cannot be moved between rows.
  private encryptSecrets(id: string, secrets: ConversationSecrets): string | null {
    return Object.keys(secrets).length ? this.cipher.encrypt(JSON.stringify(secrets), `conversation:${id}`) : null;
  }

  private decryptSecrets(id: string, stored: string | null): ConversationSecrets {
    return stored ? (JSON.parse(this.cipher.decrypt(stored, `conversation:${id}`)) as ConversationSecrets) : {};
  }

  async search(userId: string, query: SearchConversationsQueryDto): Promise<{ items: Array<Record<string, unknown>>; next_page_id: string | null }> {
    const { column, direction } = sortSpec(query.sort_order);
    const builder = this.filtered(userId, query)
      .orderBy(`c.${column}`, direction)
      .addOrderBy('c.id', direction)
      .take(query.limit + 1);
    if (query.page_id) {
      const cursor = decodePageToken(query.page_id);
      const comparison = direction === 'DESC' ? '<' : '>';
      builder.andWhere(`(c.${column}, c.id) ${comparison} (:cursorTime, :cursorId)`, {
        cursorTime: cursor.time,
        cursorId: cursor.id,
      });
    }
    const rows = await builder.getMany();
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const timeOf = (entity: ConversationEntity) => (column === 'created_at' ? entity.createdAt : entity.updatedAt);
    return {
      items: page.map((entity) => this.toRecord(entity)),
      next_page_id: rows.length > query.limit && last ? encodePageToken(timeOf(last), last.id) : null,
    };
  }

  count(userId: string, filters: ConversationFiltersQueryDto): Promise<number> {
    return this.filtered(userId, filters).getCount();
  }

  /** The caller's conversations by id, in order; null for unknown ids and other users' conversations. */
  async batchGet(userId: string, ids: string[]): Promise<Array<Record<string, unknown> | null>> {
    const found = ids.length ? await this.conversations.findBy(ids.map((id) => ({ id, ownerId: userId }))) : [];
    const byId = new Map(found.map((entity) => [entity.id, entity]));
    return ids.map((id) => {
      const entity = byId.get(id);
      return entity ? this.toRecord(entity) : null;
    });
  }

  async rename(id: string, title: string): Promise<void> {
    await this.changeState(id, 'title', title);
  }

  async setConfirmationPolicy(id: string, policy: ConfirmationPolicy): Promise<void> {
    await this.changeState(id, 'confirmation_policy', normalizePolicy(policy));
  }

  /** Sets the status and appends its ConversationStateUpdateEvent in one statement. */
  /** `onlyIfStatus`: change only from that status (a run ending must not overwrite a pause). */
  async setExecutionStatus(id: string, status: ExecutionStatus, runGeneration?: number | null, onlyIfStatus?: ExecutionStatus): Promise<void> {
    await this.changeState(id, 'execution_status', status, runGeneration, onlyIfStatus);
  }

  async changeState(
    id: string,
    key: keyof ConversationColumnChanges,
    value: unknown,
    runGeneration?: number | null,
    onlyIfStatus?: ExecutionStatus,
  ): Promise<void> {
    const event = buildEvent('ConversationStateUpdateEvent', { key, value }) as unknown as Record<string, unknown>;
    await this.store.append(id, event, { set: { [key]: value }, runGeneration, onlyIfStatus });
  }

  async delete(id: string): Promise<void> {
    await this.runner.stop(id);
    const result = await this.conversations.delete({ id });
    this.owners.forget(id);
    if (!result.affected) throw new NotFoundException({ detail: `Conversation not found: ${id}` });
  }

  private filtered(userId: string, filters: ConversationFiltersQueryDto) {
    const builder = this.conversations.createQueryBuilder('c').where('c.owner_id = :userId', { userId });
    if (filters.title__contains) {
      builder.andWhere(`c.title ILIKE :title ESCAPE '\\'`, {
        title: `%${filters.title__contains.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`,
      });
    }
    const status = filters.execution_status ?? filters.status;
    if (status) builder.andWhere('c.execution_status = :status', { status });
    return builder;
  }
}

/** The same structure with every credential (api keys, env values, auth headers) masked. */
export function maskMcpConfig(config: Record<string, unknown>): Record<string, unknown> {
  const mask = (value: unknown, key: string | null, insideEnv: boolean): unknown => {
    if (typeof value === 'string') return insideEnv || (key !== null && /api_key|token|secret|password|authorization/i.test(key)) ? MASKED_SECRET : value;
    if (Array.isArray(value)) return value.map((item) => mask(item, null, insideEnv));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([childKey, child]) => [childKey, mask(child, childKey, insideEnv || childKey === 'env' || childKey === 'headers')]));
    }
    return value;
  };
  return mask(config, null, false) as Record<string, unknown>;
}

function normalizePolicy(policy: ConfirmationPolicy): ConfirmationPolicy {
  if (policy.kind !== 'ConfirmRisky') return { kind: policy.kind };
  return { kind: 'ConfirmRisky', threshold: policy.threshold ?? 'HIGH', confirm_unknown: policy.confirm_unknown ?? true };
}

function validTags(tags: Record<string, unknown> | undefined): Record<string, string> {
  if (!tags) return {};
  for (const [key, value] of Object.entries(tags)) {
    if (typeof value !== 'string') {
      throw RequestValidationException.single(['body', 'tags', key], 'tag values must be strings', 'string_type');
    }
  }
  return tags as Record<string, string>;
}

/** Our llm_model or the reference's agent.llm, with the api key split off for encryption. */
function agentConfigFrom(dto: CreateConversationDto): { agent: ConversationAgentConfig; llmApiKey: string | null } {
  const agent = dto.agent ?? {};
  const llm = (agent.llm ?? {}) as Record<string, unknown>;
  if (typeof agent.llm !== 'undefined' && (typeof agent.llm !== 'object' || agent.llm === null)) {
    throw RequestValidationException.single(['body', 'agent', 'llm'], 'llm must be an object', 'dict_type');
  }
  for (const field of ['model', 'api_key', 'base_url'] as const) {
    if (llm[field] !== undefined && llm[field] !== null && typeof llm[field] !== 'string') {
      throw RequestValidationException.single(['body', 'agent', 'llm', field], `${field} must be a string`, 'string_type');
    }
  }
  const { api_key: apiKey, ...llmRest } = llm;
  if (agent.tools !== undefined) {
    const tools = agent.tools;
    if (!Array.isArray(tools)) throw RequestValidationException.single(['body', 'agent', 'tools'], 'tools must be an array', 'list_type');
    tools.forEach((tool, index) => {
      if (!tool || typeof tool !== 'object' || typeof (tool as { name?: unknown }).name !== 'string') {
        throw RequestValidationException.single(['body', 'agent', 'tools', index], 'each tool needs a string name', 'model_type');
      }
    });
  }
  if (agent.mcp_config !== undefined && agent.mcp_config !== null && (typeof agent.mcp_config !== 'object' || Array.isArray(agent.mcp_config))) {
    throw RequestValidationException.single(['body', 'agent', 'mcp_config'], 'mcp_config must be an object', 'dict_type');
  }
  const tools = Array.isArray(agent.tools)
    ? (agent.tools as Array<{ name: string; params?: Record<string, unknown> }>)
    : DEFAULT_TOOLS.map((name) => ({ name }));
  const model = dto.llm_model ?? (llm.model as string | undefined) ?? null;
  return {
    agent: {
      ...agent,
      kind: 'Agent',
      llm: { ...llmRest, model, base_url: (llm.base_url as string | undefined) ?? null, usage_id: (llm.usage_id as string | undefined) ?? 'agent' },
      tools,
      mcp_config: (agent.mcp_config as Record<string, unknown> | undefined) ?? null,
    },
    llmApiKey: typeof apiKey === 'string' && apiKey ? apiKey : null,
  };
}
