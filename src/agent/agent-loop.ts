import { Logger } from '@nestjs/common';
import type { ConfirmationPolicy } from '../conversations/entities/conversation.entity.js';
import { buildEvent, type EventKind, type EventInit } from '../events/dto/event-registry.js';
import type { EventStoreService } from '../events/event-store.service.js';
import { needsConfirmation } from './confirmation.js';
import { CONDENSE_AFTER_EVENTS, planCondensation, summarize } from './condenser.js';
import { buildLlmView } from './llm-view.js';
import {
  isOverBudget,
  LlmContextWindowExceededError,
  recordResponse,
  type LlmClient,
  type LlmMetrics,
  type LlmResponse,
  type MessageToolCall,
} from './llm/index.js';
import type { RunLease } from './run-lease.service.js';
import { isStuck } from './stuck-detector.js';
import { maskSecrets } from './conversation-secret-env.js';
import type { AgentTool, ToolAction, ToolContext } from './tools/index.js';

type StoredEvent = Record<string, any>;

export type RunEnd = 'finished' | 'waiting_for_confirmation' | 'stuck' | 'stopped' | 'max_iterations' | 'max_budget';

export interface AgentLoopOptions {
  conversationId: string;
  lease: RunLease;
  llm: LlmClient;
  tools: AgentTool[];
  toolContext: ToolContext;
  policy: ConfirmationPolicy;
  maxIterations: number;
  condense: boolean;
  logCompletions: boolean;
  stuckDetection: boolean;
  metrics: LlmMetrics;
  store: EventStoreService;
  /** Current execution status from the database (a pause or delete stops the loop). */
  readStatus: () => Promise<string | null>;
  saveStats: (stats: Record<string, unknown>) => Promise<void>;
  leaseLost: () => boolean;
  /** Aborts an LLM call in flight (the conversation is being deleted). */
  signal: AbortSignal;
  /** Called before each step reads the log: messages already in it need no further run. */
  clearRunRequested: () => Promise<void>;
}

const SECURITY_RISKS = new Set(['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH']);
/** Arguments every tool accepts that describe the call rather than being part of the action. */
const CALL_METADATA = ['summary', 'security_risk'];

interface PlannedCall {
  actionEvent: StoredEvent;
  tool: AgentTool;
  action: Record<string, unknown>;
}

/** ActionEvents with an action and no result (observation, error or rejection) yet. */
export function pendingActionEvents(log: StoredEvent[]): StoredEvent[] {
  const answered = new Set(
    log
      .filter((event) => event.kind === 'ObservationEvent' || event.kind === 'AgentErrorEvent' || event.kind === 'UserRejectObservation')
      .map((event) => event.tool_call_id),
  );
  return log.filter((event) => event.kind === 'ActionEvent' && event.action && !answered.has(event.tool_call_id));
}

/** One run of the agent on one conversation: steps until it finishes, asks, stops or fails. */
export class AgentLoop {
  private readonly logger = new Logger(AgentLoop.name);
  private log: StoredEvent[] = [];
  /** Every stored event up to this position is in `log` (the loop's own appends may be ahead of it). */
  private readUpTo = -1;
  /** Positions of the events in `log`, which is kept in position order. */
  private readonly seqOf = new Map<string, number>();
  private readonly toolsByName: Map<string, AgentTool>;

  constructor(private readonly options: AgentLoopOptions) {
    this.toolsByName = new Map(options.tools.map((tool) => [tool.name, tool]));
  }

  async append<K extends EventKind>(kind: K, fields: EventInit<K>): Promise<StoredEvent> {
    const event = buildEvent(kind, fields) as unknown as StoredEvent;
    const { seq } = await this.options.store.append(this.options.conversationId, event, {
      runGeneration: this.options.lease.generation,
    });
    this.insert(event, seq);
    if (seq === this.readUpTo + 1) this.readUpTo = seq;
    return event;
  }

  /**
   * Reads what others appended (a user message sent while a tool ran or the LLM answered) into the
   * log at its position, including events stored before the loop's own latest append.
   */
  private async refreshLog(): Promise<void> {
    for (;;) {
      const rows = await this.options.store.readAfter(this.options.conversationId, this.readUpTo, 1000);
      for (const row of rows) {
        if (!this.seqOf.has(row.id)) this.insert(JSON.parse(row.json), row.seq);
        this.readUpTo = row.seq;
      }
      if (rows.length < 1000) return;
    }
  }

  private insert(event: StoredEvent, seq: number): void {
    let at = this.log.length;
    while (at > 0 && (this.seqOf.get(this.log[at - 1].id) ?? -1) > seq) at--;
    this.log.splice(at, 0, event);
    this.seqOf.set(event.id, seq);
  }

  /** Runs pending actions (accepted by the user) or answers them as interrupted, then steps. */
  async run(mode: 'fresh' | 'confirmed' | 'resume', systemPrompt: string): Promise<RunEnd> {
    await this.refreshLog();
    if (!this.log.some((event) => event.kind === 'SystemPromptEvent')) {
      await this.append('SystemPromptEvent', {
        system_prompt: { type: 'text', text: systemPrompt },
        tools: this.options.tools.map((tool) => tool.definition()) as never,
      });
    }
    const pending = this.pendingActions();
    if (pending.length) {
      if (mode === 'confirmed') {
        const finished = await this.execute(pending);
        if (finished) return 'finished';
      } else {
        // Resumed after the previous holder died: the action may have run partly. Otherwise it waited for a
        // confirmation that never came (paused, or run again instead of answering) and did not run at all.
        const error = mode === 'resume'
          ? 'The action was interrupted by a restart of the service before it completed; check its effects before repeating it.'
          : 'The action was not run: it was waiting for the user\'s confirmation when the run was stopped.';
        for (const { actionEvent } of pending) {
          await this.append('AgentErrorEvent', { tool_name: actionEvent.tool_name, tool_call_id: actionEvent.tool_call_id, error });
        }
      }
    }
    // A run taken over from a dead instance keeps counting its steps toward max_iterations.
    for (let iteration = mode === 'resume' ? this.stepsSinceRunStarted() : 0; ; iteration++) {
      if (this.options.leaseLost() || this.options.signal.aborted) return 'stopped';
      if ((await this.options.readStatus()) !== 'running') return 'stopped';
      if (iteration >= this.options.maxIterations) return 'max_iterations';
      await this.options.clearRunRequested();
      await this.refreshLog();
      const end = await this.step();
      if (end) return end;
      if (this.options.stuckDetection && isStuck(buildLlmView(this.log).events)) return 'stuck';
      if (isOverBudget(this.options.metrics)) return 'max_budget';
    }
  }

  private async step(): Promise<RunEnd | null> {
    await this.condenseIfNeeded(false);
    let response: LlmResponse;
    try {
      response = await this.callLlm();
    } catch (error) {
      if (!(error instanceof LlmContextWindowExceededError) || !this.options.condense) throw error;
      await this.condenseIfNeeded(true);
      response = await this.callLlm();
    }
    const calls = response.message.tool_calls ?? [];
    if (calls.length === 0) {
      await this.append('MessageEvent', {
        source: 'agent',
        llm_message: { ...response.message, tool_calls: null } as never,
        llm_response_id: response.id,
      });
      return 'finished';
    }
    const planned = await this.recordActions(response, calls);
    if (planned.length === 0) return null;
    const asks = needsConfirmation(
      this.options.policy,
      planned.map((call) => ({ toolName: call.tool.name, securityRisk: call.actionEvent.security_risk })),
    );
    if (asks) return 'waiting_for_confirmation';
    return (await this.execute(planned)) ? 'finished' : null;
  }

  private async callLlm(): Promise<LlmResponse> {
    const view = buildLlmView(this.log);
    const tools = this.options.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
    const response = await this.options.llm.complete({ messages: view.messages, tools, signal: this.options.signal });
    await this.recordUsage(response);
    return response;
  }

  private async recordUsage(response: LlmResponse): Promise<void> {
    this.options.metrics = recordResponse(this.options.metrics, response, { keepHistory: false });
    await this.options.saveStats({ usage_to_metrics: { agent: this.options.metrics } });
    if (this.options.logCompletions) {
      await this.append('LLMCompletionLogEvent', {
        filename: `${response.model.replace(/[^\w.-]/g, '_')}-${response.id}.json`,
        log_data: JSON.stringify({ request: response.rawRequest, response: response.rawResponse, cost: response.cost }),
        model_name: response.model,
        usage_id: 'agent',
      });
    }
  }

  /** One ActionEvent per call (calls after a finish are dropped); unusable calls get an AgentErrorEvent. */
  private async recordActions(response: LlmResponse, calls: MessageToolCall[]): Promise<PlannedCall[]> {
    const finishAt = calls.findIndex((call) => call.name === 'finish');
    const kept = finishAt >= 0 ? calls.slice(0, finishAt + 1) : calls;
    const planned: PlannedCall[] = [];
    for (const [index, call] of kept.entries()) {
      const tool = this.toolsByName.get(call.name);
      let args: Record<string, unknown> = {};
      let error: string | null = null;
      let action: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = JSON.parse(call.arguments || '{}');
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        args = parsed as Record<string, unknown>;
      } catch {
        error = `The arguments of ${call.name} are not a valid JSON object: ${call.arguments.slice(0, 200)}`;
      }
      if (!tool) {
        error = `Tool '${call.name}' not found. Available: ${[...this.toolsByName.keys()].join(', ')}`;
      } else if (!error) {
        const actionArgs = Object.fromEntries(Object.entries(args).filter(([key]) => !CALL_METADATA.includes(key)));
        try {
          action = tool.toAction(actionArgs);
        } catch (failure) {
          error = `Invalid arguments for ${call.name}: ${(failure as Error).message}`;
        }
      }
      const risk = typeof args.security_risk === 'string' && SECURITY_RISKS.has(args.security_risk.toUpperCase())
        ? args.security_risk.toUpperCase()
        : 'UNKNOWN';
      const first = index === 0;
      const actionEvent = await this.append('ActionEvent', {
        thought: first ? (response.message.content.filter((item) => item.type === 'text') as never) : [],
        reasoning_content: first ? (response.message.reasoning_content ?? null) : null,
        thinking_blocks: first ? ((response.message.thinking_blocks ?? []) as never) : [],
        action: action as never,
        tool_name: call.name,
        tool_call_id: call.id,
        tool_call: { ...call, origin: call.origin ?? 'completion' } as never,
        llm_response_id: response.id,
        security_risk: risk as never,
        summary: typeof args.summary === 'string' ? args.summary : null,
      });
      if (error || !tool || !action) {
        await this.append('AgentErrorEvent', { tool_name: call.name, tool_call_id: call.id, error: error ?? 'unusable call' });
      } else {
        planned.push({ actionEvent, tool, action });
      }
    }
    return planned;
  }

  /** Executes actions in order; true when `finish` ran. */
  private async execute(planned: PlannedCall[]): Promise<boolean> {
    let finished = false;
    for (const { actionEvent, tool, action } of planned) {
      if (this.options.leaseLost()) return false;
      try {
        const observation = maskSecrets(
          await tool.execute(action as ToolAction, this.options.toolContext),
          Object.values(this.options.toolContext.env ?? {}),
        );
        await this.append('ObservationEvent', {
          tool_name: actionEvent.tool_name,
          tool_call_id: actionEvent.tool_call_id,
          observation: observation as never,
          action_id: actionEvent.id,
        });
        if (tool.name === 'finish') finished = true;
      } catch (error) {
        this.logger.warn(`Tool ${tool.name} failed: ${(error as Error).message}`);
        await this.append('AgentErrorEvent', {
          tool_name: actionEvent.tool_name,
          tool_call_id: actionEvent.tool_call_id,
          error: `The tool failed: ${(error as Error).message}`,
        });
      }
    }
    return finished;
  }

  /** LLM steps recorded (one stats update each) since the status last became running. */
  private stepsSinceRunStarted(): number {
    const isState = (event: StoredEvent, key: string) => event.kind === 'ConversationStateUpdateEvent' && event.key === key;
    const started = this.log.findLastIndex((event) => isState(event, 'execution_status') && event.value === 'running');
    return this.log.slice(started + 1).filter((event) => isState(event, 'stats')).length;
  }

  get toolNames(): string[] {
    return [...this.toolsByName.keys()];
  }

  /** ActionEvents with an action and no result yet, with their tools. */
  pendingActions(): PlannedCall[] {
    return pendingActionEvents(this.log)
      .flatMap((actionEvent) => {
        const tool = this.toolsByName.get(actionEvent.tool_name);
        return tool ? [{ actionEvent, tool, action: actionEvent.action as Record<string, unknown> }] : [];
      });
  }

  private async condenseIfNeeded(force: boolean): Promise<void> {
    if (!this.options.condense) return;
    const view = buildLlmView(this.log).events;
    const lastCondensation = this.log.findLastIndex((event) => event.kind === 'Condensation');
    const requested = this.log.findLastIndex((event) => event.kind === 'CondensationRequest') > lastCondensation;
    if (!force && !requested && view.length <= CONDENSE_AFTER_EVENTS) return;
    const plan = planCondensation(view);
    if (!plan) return;
    const response = await summarize(this.options.llm, plan);
    await this.recordUsage(response);
    const summary = response.message.content.map((item) => ('text' in item ? item.text : '')).join('\n').trim();
    await this.append('Condensation', {
      forgotten_event_ids: plan.forgotten.map((event) => event.id),
      summary: summary || 'Earlier work was condensed.',
      summary_offset: 2,
      llm_response_id: response.id,
    });
  }
}
