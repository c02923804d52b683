import { FileEditorTool } from './file-editor.tool.js';
import { GlobTool, GrepTool } from './search.tools.js';
import { FinishTool, TaskTrackerTool, ThinkTool } from './simple.tools.js';
import { TerminalTool } from './terminal.tool.js';
import type { AgentTool } from './tool.js';

export * from './tool.js';

/**
 * One set of tools per process: the terminal keeps a shell and the editor an undo history per
 * conversation, so the same instances must serve every run.
 */
let shared: AgentTool[] | null = null;

export function createDefaultTools(): AgentTool[] {
  shared ??= [new TerminalTool(), new FileEditorTool(), new TaskTrackerTool(), new ThinkTool(), new FinishTool(), new GlobTool(), new GrepTool()];
  return shared;
}
