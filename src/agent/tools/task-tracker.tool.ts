import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolArguments, toolParameters } from './tool-arguments.js';
import { buildToolDefinition, textContent, type AgentTool, type TextContent, type ToolContext, type ToolDefinition } from './tool.js';

export const TASK_STATUSES = ['todo', 'in_progress', 'done'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type TaskItem = { title: string; notes: string; status: TaskStatus };

export type TaskTrackerAction = { command: 'view' | 'plan'; task_list: TaskItem[]; kind: 'TaskTrackerAction' };

export type TaskTrackerObservation = {
  content: TextContent[];
  is_error: boolean;
  command: 'view' | 'plan';
  task_list: TaskItem[];
  kind: 'TaskTrackerObservation';
};

/** Where a conversation's task list lives between calls (and between runs and restarts). */
export interface TaskListStore {
  load(ctx: ToolContext): Promise<TaskItem[]>;
  save(ctx: ToolContext, tasks: TaskItem[]): Promise<void>;
}

/**
 * Keeps each conversation's list in `<workspace>/.agent/tasks/<conversation id>.json`: it survives
 * restarts and a run moving to another instance (which needs the workspace anyway), and one file per
 * conversation keeps apart conversations that share a workspace. The directory is hidden, so it does
 * not show in directory views.
 */
export class WorkspaceTaskListStore implements TaskListStore {
  private file(ctx: ToolContext): string {
    const safeId = ctx.conversationId.replace(/[^A-Za-z0-9_-]/g, '_');
    return join(ctx.workspaceDir, '.agent', 'tasks', `${safeId}.json`);
  }

  async load(ctx: ToolContext): Promise<TaskItem[]> {
    try {
      const stored: unknown = JSON.parse(await readFile(this.file(ctx), 'utf8'));
      return Array.isArray(stored) ? stored.map((item) => normaliseTask(item)).filter((t): t is TaskItem => t !== null) : [];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  async save(ctx: ToolContext, tasks: TaskItem[]): Promise<void> {
    const file = this.file(ctx);
    await mkdir(join(file, '..'), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(tasks, null, 2)}\n`);
    await rename(temporary, file);
  }
}

export class InMemoryTaskListStore implements TaskListStore {
  private readonly lists = new Map<string, TaskItem[]>();

  async load(ctx: ToolContext): Promise<TaskItem[]> {
    return structuredClone(this.lists.get(ctx.conversationId) ?? []);
  }

  async save(ctx: ToolContext, tasks: TaskItem[]): Promise<void> {
    this.lists.set(ctx.conversationId, structuredClone(tasks));
  }
}

function normaliseTask(item: unknown): TaskItem | null {
  if (typeof item !== 'object' || item === null) return null;
  const { title, notes, status } = item as Record<string, unknown>;
  if (typeof title !== 'string') return null;
  return {
    title,
    notes: typeof notes === 'string' ? notes : '',
    status: (TASK_STATUSES as readonly unknown[]).includes(status) ? (status as TaskStatus) : 'todo',
  };
}

function formatTaskList(tasks: TaskItem[]): string {
  if (tasks.length === 0) return 'The task list is empty. Use `plan` with `task_list` to write one.';
  const done = tasks.filter((task) => task.status === 'done').length;
  const lines = [`Task list (${done} of ${tasks.length} done):`];
  tasks.forEach((task, index) => {
    lines.push(`${index + 1}. [${task.status}] ${task.title}`);
    if (task.notes.trim()) lines.push(...task.notes.trim().split('\n').map((line) => `   ${line}`));
  });
  return lines.join('\n');
}

export class TaskTrackerTool implements AgentTool<TaskTrackerAction, TaskTrackerObservation> {
  readonly name = 'task_tracker';
  readonly readOnly = false;
  readonly description = [
    'Keep a task list for work with several steps, so that nothing is forgotten and the person following along sees progress.',
    '* `view` shows the current list. Look at it before changing it.',
    '* `plan` replaces the whole list with `task_list`: send every task, the finished ones too, each with a `title`,',
    '  optional `notes` and a `status` (todo, in_progress or done).',
    'Mark a task in_progress when you start it (one at a time) and done as soon as it is finished and checked.',
    'Skip the list for a task that takes one or two steps.',
  ].join('\n');
  readonly parameters = toolParameters(
    {
      command: { type: 'string', enum: ['view', 'plan'], default: 'view', description: '`view` shows the list; `plan` replaces it with `task_list`.' },
      task_list: {
        type: 'array',
        description: 'plan: the complete new list, in order.',
        items: {
          type: 'object',
          properties: {
            title: { type: 'string', description: 'What the task is, briefly.' },
            notes: { type: 'string', description: 'Details, findings, or what remains.' },
            status: { type: 'string', enum: TASK_STATUSES, default: 'todo', description: 'todo, in_progress or done.' },
          },
          required: ['title'],
        },
      },
    },
    [],
    { readOnly: false },
  );

  constructor(private readonly store: TaskListStore = new WorkspaceTaskListStore()) {}

  toAction(raw: unknown): TaskTrackerAction {
    const args = new ToolArguments(this.name, raw, ['command', 'task_list']);
    const command = args.enumValue('command', ['view', 'plan'] as const, 'view');
    const items = args.optionalArray('task_list');
    if (command === 'plan' && items === null) {
      throw args.error('`plan` needs "task_list", the complete list of tasks (an empty array clears the list).');
    }
    const taskList = (items ?? []).map((item, index) => this.readTask(args, item, index));
    return { command, task_list: command === 'plan' ? taskList : [], kind: 'TaskTrackerAction' };
  }

  private readTask(args: ToolArguments, item: unknown, index: number): TaskItem {
    const where = `task_list[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw args.error(`${where} must be an object with "title", "notes" and "status".`);
    }
    const { title, notes, status } = item as Record<string, unknown>;
    if (typeof title !== 'string' || title.trim() === '') throw args.error(`${where} needs a non-empty "title".`);
    if (notes !== undefined && notes !== null && typeof notes !== 'string') throw args.error(`${where}.notes must be a string.`);
    if (status !== undefined && status !== null && !(TASK_STATUSES as readonly unknown[]).includes(status)) {
      throw args.error(`${where}.status must be one of ${TASK_STATUSES.join(', ')}, got ${JSON.stringify(status)}.`);
    }
    return { title: title.trim(), notes: typeof notes === 'string' ? notes : '', status: (status as TaskStatus | undefined) ?? 'todo' };
  }

  definition(): ToolDefinition {
    return buildToolDefinition('TaskTrackerTool', this.name, this.description, 'TaskTrackerAction', 'TaskTrackerObservation', {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  }

  async execute(action: TaskTrackerAction, ctx: ToolContext): Promise<TaskTrackerObservation> {
    if (action.command === 'view') {
      const tasks = await this.store.load(ctx);
      return this.observation(action, formatTaskList(tasks), tasks);
    }
    await this.store.save(ctx, action.task_list);
    const text = action.task_list.length === 0 ? 'The task list was cleared.' : `Task list saved.\n${formatTaskList(action.task_list)}`;
    return this.observation(action, text, action.task_list);
  }

  private observation(action: TaskTrackerAction, text: string, tasks: TaskItem[]): TaskTrackerObservation {
    return { content: [textContent(text)], is_error: false, command: action.command, task_list: tasks, kind: 'TaskTrackerObservation' };
  }
}
