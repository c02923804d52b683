import { FileEditorTool, type FileEditorToolOptions } from './file-editor.tool.js';
import { FinishTool } from './finish.tool.js';
import { GlobTool } from './glob.tool.js';
import { GrepTool, type GrepToolOptions } from './grep.tool.js';
import { TaskTrackerTool, type TaskListStore } from './task-tracker.tool.js';
import { TerminalTool, type TerminalToolOptions } from './terminal.tool.js';
import { ThinkTool } from './think.tool.js';
import { functionDeclaration, type AgentTool, type ToolDefinition } from './tool.js';

export type DefaultToolsOptions = {
  terminal?: TerminalToolOptions;
  fileEditor?: FileEditorToolOptions;
  grep?: GrepToolOptions;
  /** Default: a JSON file per conversation under `<workspace>/.agent/tasks/`. */
  taskListStore?: TaskListStore;
};

/**
 * New instances of the built-in tools, in the order the LLM is offered them. The terminal keeps a
 * shell and the editor an undo history per conversation: create them once per process and share
 * them (see sharedDefaultTools), disposing of a conversation's state when it is deleted.
 */
export function createDefaultTools(options: DefaultToolsOptions = {}): AgentTool[] {
  return [
    new TerminalTool(options.terminal),
    new FileEditorTool(options.fileEditor),
    new TaskTrackerTool(options.taskListStore),
    new ThinkTool(),
    new FinishTool(),
    new GlobTool(),
    new GrepTool(options.grep),
  ];
}

let sharedTools: AgentTool[] | null = null;

/**
 * The process-wide default tools, created on first use. Runs of the same conversation must reach
 * the same instances, or its shell and undo history would be lost between runs.
 */
export function sharedDefaultTools(): AgentTool[] {
  sharedTools ??= createDefaultTools();
  return sharedTools;
}

/** Tools by name, with what the agent loop needs of all of them at once. */
export class ToolRegistry {
  private readonly byName = new Map<string, AgentTool>();

  constructor(tools: AgentTool[]) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`Two tools are named "${tool.name}"`);
      this.byName.set(tool.name, tool);
    }
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  get(name: string): AgentTool | undefined {
    return this.byName.get(name);
  }

  list(): AgentTool[] {
    return [...this.byName.values()];
  }

  /** The named tools in registry order; unknown names are ignored. */
  select(names: Iterable<string>): AgentTool[] {
    const wanted = new Set(names);
    return this.list().filter((tool) => wanted.has(tool.name));
  }

  definitions(): ToolDefinition[] {
    return this.list().map((tool) => tool.definition());
  }

  functionDeclarations(): ReturnType<typeof functionDeclaration>[] {
    return this.list().map((tool) => functionDeclaration(tool));
  }

  /** Releases a conversation's shells and histories (when it is deleted). */
  async disposeConversation(conversationId: string): Promise<void> {
    await Promise.all(this.list().map((tool) => tool.dispose?.(conversationId)));
  }

  /** Releases everything (at shutdown). */
  async close(): Promise<void> {
    await Promise.all(this.list().map((tool) => tool.close?.()));
  }
}
