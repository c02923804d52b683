import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildAction, buildObservation } from '../../events/dto/event-registry.js';
import { callSchema, requireString, text, ToolArgumentError, toolDefinition, type AgentTool, type ToolContext } from './tool.js';

export class ThinkTool implements AgentTool {
  readonly name = 'think';
  readonly readOnly = true;
  readonly description = 'Write down a thought: reasoning, a plan, or a hypothesis. It changes nothing.';
  readonly parameters = callSchema({ thought: { type: 'string' } }, ['thought'], false);

  toAction(args: Record<string, unknown>) {
    return buildAction('ThinkAction', { thought: requireString(args, 'thought') }) as unknown as Record<string, unknown>;
  }

  async execute() {
    return buildObservation('ThinkObservation', { content: [text('Your thought has been logged.')] }) as unknown as Record<string, unknown>;
  }

  definition() {
    return toolDefinition('ThinkTool', this, 'ThinkAction', 'ThinkObservation');
  }
}

export class FinishTool implements AgentTool {
  readonly name = 'finish';
  readonly readOnly = true;
  readonly description = 'End the task, with a message to the user saying what was done.';
  readonly parameters = callSchema({ message: { type: 'string' } }, ['message'], false);

  toAction(args: Record<string, unknown>) {
    return buildAction('FinishAction', { message: requireString(args, 'message') }) as unknown as Record<string, unknown>;
  }

  async execute(action: Record<string, unknown>) {
    return buildObservation('FinishObservation', { content: [text(String(action.message))] }) as unknown as Record<string, unknown>;
  }

  definition() {
    return toolDefinition('FinishTool', this, 'FinishAction', 'FinishObservation');
  }
}

const TASK_STATUSES = ['todo', 'in_progress', 'done'];

/** The task list lives in the workspace (.agent/TASKS.json), so it survives restarts and other instances see it. */
export class TaskTrackerTool implements AgentTool {
  readonly name = 'task_tracker';
  readonly readOnly = false;
  readonly description = 'Keep a task list for the work: plan replaces the whole list, view shows it.';
  readonly parameters = callSchema(
    {
      command: { type: 'string', enum: ['view', 'plan'] },
      task_list: {
        type: 'array',
        items: {
          type: 'object',
          properties: { title: { type: 'string' }, notes: { type: 'string' }, status: { type: 'string', enum: TASK_STATUSES } },
          required: ['title'],
        },
      },
    },
    ['command'],
    false,
  );

  toAction(args: Record<string, unknown>) {
    const command = requireString(args, 'command');
    if (command !== 'view' && command !== 'plan') throw new ToolArgumentError('"command" must be view or plan');
    const list = args.task_list ?? [];
    if (!Array.isArray(list)) throw new ToolArgumentError('"task_list" must be an array');
    const tasks = list.map((item, index) => {
      if (!item || typeof item !== 'object' || typeof (item as { title?: unknown }).title !== 'string') {
        throw new ToolArgumentError(`task_list[${index}] needs a string title`);
      }
      const { title, notes, status } = item as Record<string, unknown>;
      if (status !== undefined && !TASK_STATUSES.includes(String(status))) {
        throw new ToolArgumentError(`task_list[${index}].status must be one of ${TASK_STATUSES.join(', ')}`);
      }
      return { title, notes: typeof notes === 'string' ? notes : '', status: (status as string | undefined) ?? 'todo' };
    });
    return buildAction('TaskTrackerAction', { command, task_list: tasks as never }) as unknown as Record<string, unknown>;
  }

  async execute(action: Record<string, unknown>, context: ToolContext) {
    const file = join(context.workspaceDir, '.agent', 'TASKS.json');
    let tasks = action.task_list as Array<{ title: string; notes: string; status: string }>;
    if (action.command === 'plan') {
      await mkdir(join(context.workspaceDir, '.agent'), { recursive: true });
      await writeFile(file, JSON.stringify(tasks, null, 2));
    } else {
      tasks = JSON.parse(await readFile(file, 'utf8').catch(() => '[]'));
    }
    const listing = tasks.length
      ? tasks.map((task, index) => `${index + 1}. [${task.status}] ${task.title}${task.notes ? ` — ${task.notes}` : ''}`).join('\n')
      : 'The task list is empty.';
    return buildObservation('TaskTrackerObservation', {
      content: [text(action.command === 'plan' ? `Task list updated:\n${listing}` : listing)],
      command: action.command as never,
      task_list: tasks as never,
    }) as unknown as Record<string, unknown>;
  }

  definition() {
    return toolDefinition('TaskTrackerTool', this, 'TaskTrackerAction', 'TaskTrackerObservation');
  }
}
