import {
  ConflictException,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { mkdir } from 'node:fs/promises';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ConversationsService } from '../conversations/conversations.service.js';
import type { ConversationEntity } from '../conversations/entities/conversation.entity.js';
import { buildEvent } from '../events/dto/event-registry.js';
import { EventStoreService, StaleRunGenerationError } from '../events/event-store.service.js';
import type { ConversationRunner } from '../events/conversation-runner.js';
import { SettingsService } from '../settings/settings.service.js';
import { AgentLoop, pendingActionEvents, type RunEnd } from './agent-loop.js';
import { createLlmClient, createMetrics, LlmError, redactSecrets, type LlmMetrics } from './llm/index.js';
import { leaseTtlMs, RunLeaseService, type RunLease } from './run-lease.service.js';
import { configuredLlm, llmCallLimits } from './conversation-llm.js';
import { secretEnvironment } from './conversation-secret-env.js';
import { McpToolSet } from './mcp/mcp-tool-set.js';
import { mcpServerSpecs } from './mcp/mcp-servers.js';
import { systemPromptText } from './system-prompt.js';
import { sharedDefaultTools, type AgentTool } from './tools/index.js';

type RunMode = 'fresh' | 'confirmed' | 'resume';

/** The reference's clients name tools by their class (TerminalTool); the LLM sees ours (terminal). */
const BUILTIN_TOOL_NAMES: Record<string, string> = {
  TerminalTool: 'terminal',
  BashTool: 'terminal',
  FileEditorTool: 'file_editor',
  TaskTrackerTool: 'task_tracker',
  ThinkTool: 'think',
  FinishTool: 'finish',
  GlobTool: 'glob',
  GrepTool: 'grep',
};

/** How long respond_to_confirmation waits for a lease whose loop has ended but not released it yet. */
const ACQUIRE_WAIT_MS = 2_000;

const END_STATUS: Record<RunEnd, string | null> = {
  finished: 'finished',
  waiting_for_confirmation: 'waiting_for_confirmation',
  stuck: 'stuck',
  stopped: null,
  max_iterations: 'error',
  max_budget: 'error',
};

/**
 * Starts, resumes and stops agent loops. A loop runs only while this process holds the
 * conversation's run lease; a sweeper takes over runs whose holder died.
 */
@Injectable()
export class AgentRunnerService implements ConversationRunner, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AgentRunnerService.name);
  private readonly running = new Map<string, Promise<void>>();
  private readonly aborts = new Map<string, AbortController>();
  private sweeper: NodeJS.Timeout | null = null;
  private shuttingDown = false;

  constructor(
    private readonly leases: RunLeaseService,
    private readonly conversations: ConversationsService,
    private readonly store: EventStoreService,
    private readonly settings: SettingsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const every = Math.max(250, Math.floor(leaseTtlMs() / 3));
    this.sweeper = setInterval(() => void this.takeOverOrphans(), every);
    this.sweeper.unref();
  }

  /**
   * On SIGTERM: stop local loops where they are and give their leases up, so another instance
   * (or this one after a restart) resumes them at once instead of after the lease expires.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.shuttingDown = true;
    if (this.sweeper) clearInterval(this.sweeper);
    for (const abort of this.aborts.values()) abort.abort();
    const runs = [...this.running.values()];
    await Promise.race([Promise.allSettled(runs), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  }

  /** A message asked the agent to run: start it unless it runs (the running loop reads the message). */
  async requestRun(conversationId: string): Promise<void> {
    const status = await this.leases.executionStatus(conversationId);
    if (status === 'waiting_for_confirmation') return;
    await this.startOrRequest(conversationId);
  }

  /**
   * Starts a loop, or, while another holds the lease (a step still in flight after a pause, a loop
   * writing its last event), marks the run requested so the holder runs again when it releases.
   */
  private async startOrRequest(conversationId: string): Promise<void> {
    if (await this.start(conversationId, 'fresh')) return;
    await this.leases.markRunRequested(conversationId);
    // The holder may have released between our attempt and the mark, without seeing it: try once more.
    await this.start(conversationId, 'fresh');
  }

  /** POST .../run: 409 when a loop already runs or actions wait for confirmation. */
  async run(conversationId: string): Promise<void> {
    const status = await this.leases.executionStatus(conversationId);
    if (status === 'waiting_for_confirmation') {
      throw new ConflictException({ detail: 'The agent is waiting for confirmation: respond to it first' });
    }
    if (status === 'running') throw new ConflictException({ detail: 'The agent is already running' });
    await this.startOrRequest(conversationId);
  }

  async pause(conversationId: string): Promise<void> {
    await this.conversations.setExecutionStatus(conversationId, 'paused');
    // A run asked for before the pause must not restart the loop when its current step ends.
    await this.leases.cancelRunRequest(conversationId);
    await this.store.append(conversationId, buildEvent('PauseEvent', {}) as unknown as Record<string, unknown>);
  }

  async respondToConfirmation(conversationId: string, accept: boolean, reason?: string): Promise<void> {
    const status = await this.leases.executionStatus(conversationId);
    if (status !== 'waiting_for_confirmation') {
      throw new ConflictException({ detail: `Nothing waits for confirmation (status: ${status})` });
    }
    // The loop writes waiting_for_confirmation just before it releases the lease: a client answering at
    // once must not be refused for that.
    const lease = await this.acquireSoon(conversationId);
    if (!lease) throw new ConflictException({ detail: 'The agent is already running' });
    const current = await this.leases.executionStatus(conversationId);
    if (current !== 'waiting_for_confirmation') {
      await this.leases.release(lease); // another answer came first
      throw new ConflictException({ detail: `Nothing waits for confirmation (status: ${current})` });
    }
    if (accept) {
      this.launch(conversationId, lease, 'confirmed');
      return;
    }
    try {
      for (const actionEvent of pendingActionEvents(await this.store.all(conversationId))) {
        const event = buildEvent('UserRejectObservation', {
          tool_name: actionEvent.tool_name,
          tool_call_id: actionEvent.tool_call_id,
          action_id: actionEvent.id,
          rejection_reason: reason?.trim() || 'User rejected the action',
          rejection_source: 'user',
        }) as unknown as Record<string, unknown>;
        await this.store.append(conversationId, event, { runGeneration: lease.generation });
      }
      await this.conversations.setExecutionStatus(conversationId, 'idle', lease.generation);
    } finally {
      await this.leases.release(lease);
    }
  }

  /**
   * Before a delete: aborts a local loop's LLM call and waits briefly for it to end (a loop on
   * another instance ends at its next write, which finds the conversation gone).
   */
  async stop(conversationId: string): Promise<void> {
    this.aborts.get(conversationId)?.abort();
    const run = this.running.get(conversationId);
    if (run) await Promise.race([run, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    for (const tool of sharedDefaultTools()) await tool.dispose?.(conversationId);
  }

  /** Takes the lease and runs the loop in the background; false when someone else holds it. */
  private async start(conversationId: string, mode: RunMode): Promise<boolean> {
    if (this.shuttingDown) return false;
    const lease = await this.leases.acquire(conversationId);
    if (!lease) return false;
    this.launch(conversationId, lease, mode);
    return true;
  }

  /** Runs the loop in the background under a lease already taken. */
  private launch(conversationId: string, lease: RunLease, mode: RunMode): void {
    const abort = new AbortController();
    this.aborts.set(conversationId, abort);
    const run: Promise<void> = this.runWithLease(conversationId, lease, mode, abort.signal)
      .catch((error: unknown) => this.logger.error(`Run of ${conversationId} stopped: ${(error as Error).message}`))
      .finally(() => {
        // A next run may already have been launched here (its lease taken right after our release).
        if (this.running.get(conversationId) === run) this.running.delete(conversationId);
        if (this.aborts.get(conversationId) === abort) this.aborts.delete(conversationId);
      });
    this.running.set(conversationId, run);
  }

  /** The lease, waiting up to ACQUIRE_WAIT_MS for a holder whose loop has ended to release it. */
  private async acquireSoon(conversationId: string): Promise<RunLease | null> {
    const deadline = Date.now() + ACQUIRE_WAIT_MS;
    for (;;) {
      if (this.shuttingDown) return null;
      const lease = await this.leases.acquire(conversationId);
      if (lease || Date.now() >= deadline) return lease;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  private async takeOverOrphans(): Promise<void> {
    if (this.shuttingDown) return;
    try {
      for (const conversationId of await this.leases.orphanedRuns()) {
        if (this.running.has(conversationId)) continue;
        if (await this.start(conversationId, 'resume')) this.logger.log(`Took over the run of conversation ${conversationId}`);
      }
    } catch (error) {
      this.logger.warn(`Run sweeper: ${(error as Error).message}`);
    }
  }

  private async runWithLease(conversationId: string, initialLease: RunLease, mode: RunMode, signal: AbortSignal): Promise<void> {
    let lease = initialLease;
    let again = true;
    while (again) {
      again = false;
      await this.runOnce(conversationId, lease, mode, signal);
      mode = 'fresh';
      if ((await this.leases.release(lease)) && !this.shuttingDown && !signal.aborted) {
        const status = await this.leases.executionStatus(conversationId);
        if (status && status !== 'waiting_for_confirmation') {
          const next = await this.leases.acquire(conversationId);
          if (next) {
            lease = next;
            again = true;
          }
        }
      }
    }
  }

  private async runOnce(conversationId: string, lease: RunLease, mode: RunMode, signal: AbortSignal): Promise<void> {
    let lost = false;
    const heartbeat = setInterval(() => {
      this.leases.renew(lease).then((held) => (lost ||= !held)).catch(() => undefined);
    }, Math.max(100, Math.floor(leaseTtlMs() / 3)));
    let secrets: Array<string | null | undefined> = [];
    let mcp: McpToolSet | null = null;
    try {
      const conversation = await this.conversations.find(conversationId);
      const config = await this.runConfig(conversation);
      secrets = [config.apiKey, ...Object.values(config.secretEnv)];
      // Still "running" with the lease free: the previous holder died or stopped mid-run, whoever noticed first
      // (the sweeper, or a message or run that found the lease expired). Otherwise the run starts anew.
      if (mode !== 'confirmed') mode = conversation.executionStatus === 'running' ? 'resume' : 'fresh';
      if (mode !== 'resume') await this.conversations.setExecutionStatus(conversationId, 'running', lease.generation);
      if (!config.model) {
        await this.fail(conversationId, lease, 'LLMNotConfigured',
          'No LLM model is configured: set llm_model (and llm_api_key, llm_base_url if needed) with POST /api/settings, or agent.llm when creating the conversation.');
        return;
      }
      mcp = await McpToolSet.connect(mcpServerSpecs(config.mcpConfig), new Set(sharedDefaultTools().map((tool) => tool.name)));
      const loop = await this.loopFor(conversationId, lease, conversation, config, () => lost, signal, mcp.tools);
      const end = await loop.run(mode, systemPromptText(conversation.workspace!.working_dir, loop.toolNames, Object.keys(config.secretEnv)));
      if (end === 'max_iterations') {
        await this.fail(conversationId, lease, 'MaxIterationsReached', `The agent reached max_iterations (${conversation.maxIterations}) in this run.`);
      } else if (end === 'max_budget') {
        await this.fail(conversationId, lease, 'MaxBudgetReached', `The agent passed max_budget_per_task (${config.maxBudget} USD).`);
      } else if (END_STATUS[end]) {
        // Only from "running": a pause (or another change) made while the last step ran stays.
        await this.conversations.setExecutionStatus(conversationId, END_STATUS[end] as never, lease.generation, 'running');
      }
    } catch (error) {
      if (error instanceof StaleRunGenerationError || lost || signal.aborted) return;
      if ((error as { status?: number }).status === 404) return; // deleted while running
      const code = error instanceof LlmError ? error.constructor.name : (error as Error)?.constructor?.name ?? 'Error';
      const detail = redactSecrets(error instanceof Error ? error.message : String(error), secrets);
      this.logger.error(`Run of ${conversationId} failed: ${code}: ${detail}`);
      await this.fail(conversationId, lease, code, detail).catch(() => undefined);
    } finally {
      clearInterval(heartbeat);
      await mcp?.close();
    }
  }

  private async fail(conversationId: string, lease: RunLease, code: string, detail: string): Promise<void> {
    await this.store.append(
      conversationId,
      buildEvent('ConversationErrorEvent', { source: 'environment', code, detail }) as unknown as Record<string, unknown>,
      { runGeneration: lease.generation },
    );
    await this.conversations.setExecutionStatus(conversationId, 'error', lease.generation);
  }

  /** The owner's settings at the moment the run starts, with the conversation's overrides. */
  private async runConfig(conversation: ConversationEntity) {
    const settings = await this.settings.resolveForAgent(conversation.ownerId);
    const secrets = this.conversations.secretsOf(conversation);
    const toolNames = (conversation.agent?.tools ?? []).map((tool) => BUILTIN_TOOL_NAMES[tool.name] ?? tool.name);
    return {
      ...configuredLlm(conversation, secrets, settings),
      condense: settings?.enableDefaultCondenser ?? true,
      maxBudget: settings?.maxBudgetPerTask ?? null,
      toolNames,
      // The conversation's own MCP servers (the reference's agent.mcp_config) replace the settings' ones.
      mcpConfig: (secrets.mcp_config as unknown) ?? settings?.mcpConfig ?? null,
      secretEnv: await secretEnvironment(secrets.secrets),
    };
  }

  private async loopFor(
    conversationId: string,
    lease: RunLease,
    conversation: ConversationEntity,
    config: Awaited<ReturnType<AgentRunnerService['runConfig']>>,
    leaseLost: () => boolean,
    signal: AbortSignal,
    mcpTools: AgentTool[] = [],
  ): Promise<AgentLoop> {
    const workingDir = conversation.workspace!.working_dir;
    await mkdir(workingDir, { recursive: true });
    const wanted = new Set(config.toolNames);
    const tools: AgentTool[] = [
      ...sharedDefaultTools().filter((tool) => wanted.size === 0 || wanted.has(tool.name) || tool.name === 'finish'),
      ...mcpTools,
    ];
    const { timeoutMs, maxRetries } = llmCallLimits();
    const stats = conversation.stats as { usage_to_metrics?: { agent?: LlmMetrics } };
    return new AgentLoop({
      conversationId,
      lease,
      llm: createLlmClient({ model: config.model!, apiKey: config.apiKey, baseUrl: config.baseUrl, timeoutMs, maxRetries }),
      tools,
      toolContext: { workspaceDir: workingDir, conversationId, env: config.secretEnv },
      policy: conversation.confirmationPolicy,
      maxIterations: conversation.maxIterations,
      condense: config.condense,
      logCompletions: conversation.options.log_completions === true,
      stuckDetection: conversation.stuckDetection,
      metrics: { ...(stats.usage_to_metrics?.agent ?? createMetrics(config.model!)), max_budget_per_task: config.maxBudget },
      store: this.store,
      readStatus: () => this.leases.executionStatus(conversationId),
      saveStats: (value) => this.conversations.changeState(conversationId, 'stats', value, lease.generation),
      leaseLost,
      signal,
      clearRunRequested: () => this.leases.clearRunRequested(lease),
    });
  }
}
