import {
  BooleanField,
  ConstantField,
  EnumField,
  FreeFormObjectField,
  NestedField,
  NumberField,
  StringField,
} from './dto-field.decorators.js';
import {
  TASK_STATUSES,
  TASK_TRACKER_COMMANDS,
  type TaskStatus,
  type TaskTrackerCommand,
} from './event-enums.js';

/** Actions of the built-in tools (finish, think, terminal, task tracker) and of MCP tools. */

export class MCPToolAction {
  @FreeFormObjectField({ default: {}, description: 'Arguments passed to the MCP tool' })
  data: Record<string, unknown>;

  @ConstantField('MCPToolAction')
  kind: 'MCPToolAction';
}

export class FinishAction {
  @StringField({ required: true, description: 'Final message to the user' })
  message: string;

  @ConstantField('FinishAction')
  kind: 'FinishAction';
}

export class ThinkAction {
  @StringField({ required: true, description: 'The thought to record' })
  thought: string;

  @ConstantField('ThinkAction')
  kind: 'ThinkAction';
}

export class TerminalAction {
  @StringField({ required: true, description: 'Shell command to run, or input for the running process' })
  command: string;

  @BooleanField({ default: false, description: 'Send the command as input to the running process' })
  is_input: boolean;

  @NumberField({ nullable: true, minimum: 0, description: 'Time limit in seconds' })
  timeout: number | null;

  @BooleanField({ default: false, description: 'Start a new terminal session first' })
  reset: boolean;

  @ConstantField('TerminalAction')
  kind: 'TerminalAction';
}

export class TaskItem {
  @StringField({ required: true })
  title: string;

  @StringField({ default: '' })
  notes: string;

  @EnumField(TASK_STATUSES, { default: 'todo' })
  status: TaskStatus;
}

export class TaskTrackerAction {
  @EnumField(TASK_TRACKER_COMMANDS, { default: 'view', description: 'view the task list, or plan (replace) it' })
  command: TaskTrackerCommand;

  @NestedField(() => TaskItem, { isArray: true, default: [], description: 'The whole task list (for plan)' })
  task_list: TaskItem[];

  @ConstantField('TaskTrackerAction')
  kind: 'TaskTrackerAction';
}
