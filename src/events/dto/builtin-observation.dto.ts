import { TaskItem } from './builtin-action.dto.js';
import {
  BooleanField,
  ConstantField,
  EnumField,
  IntegerField,
  NestedField,
  StringField,
} from './dto-field.decorators.js';
import { TASK_TRACKER_COMMANDS, type TaskTrackerCommand } from './event-enums.js';
import { ObservationBase } from './observation-base.dto.js';

/** Observations of the built-in tools (finish, think, browser, terminal, task tracker) and of MCP tools. */

export class MCPToolObservation extends ObservationBase {
  @StringField({ required: true, description: 'Name of the MCP tool that answered' })
  tool_name: string;

  @ConstantField('MCPToolObservation')
  kind: 'MCPToolObservation';
}

export class FinishObservation extends ObservationBase {
  @ConstantField('FinishObservation')
  kind: 'FinishObservation';
}

export class ThinkObservation extends ObservationBase {
  @ConstantField('ThinkObservation')
  kind: 'ThinkObservation';
}

export class BrowserObservation extends ObservationBase {
  @StringField({ nullable: true, description: 'Base64 screenshot of the page' })
  screenshot_data: string | null;

  @StringField({ nullable: true, description: 'Directory holding the full output when it was cut' })
  full_output_save_dir: string | null;

  @ConstantField('BrowserObservation')
  kind: 'BrowserObservation';
}

export class TaskTrackerObservation extends ObservationBase {
  @EnumField(TASK_TRACKER_COMMANDS, { required: true })
  command: TaskTrackerCommand;

  @NestedField(() => TaskItem, { isArray: true, default: [] })
  task_list: TaskItem[];

  @ConstantField('TaskTrackerObservation')
  kind: 'TaskTrackerObservation';
}

/** State of the shell read after a terminal command finished. */
export class CmdOutputMetadata {
  @IntegerField({ default: -1, description: '-1 while the command is still running' })
  exit_code: number;

  @IntegerField({ default: -1 })
  pid: number;

  @StringField({ nullable: true })
  username: string | null;

  @StringField({ nullable: true })
  hostname: string | null;

  @StringField({ nullable: true })
  working_dir: string | null;

  @StringField({ nullable: true })
  py_interpreter_path: string | null;

  @StringField({ default: '', description: 'Text shown before the output' })
  prefix: string;

  @StringField({ default: '', description: 'Text shown after the output' })
  suffix: string;
}

export class TerminalObservation extends ObservationBase {
  @StringField({ required: true, nullable: true, description: 'The command that ran' })
  command: string | null;

  @IntegerField({ nullable: true })
  exit_code: number | null;

  @BooleanField({ default: false, description: 'The command hit its time limit' })
  timeout: boolean;

  @NestedField(() => CmdOutputMetadata, { defaultFactory: () => ({}) })
  metadata: CmdOutputMetadata;

  @StringField({ nullable: true, description: 'Directory holding the full output when it was cut' })
  full_output_save_dir: string | null;

  @ConstantField('TerminalObservation')
  kind: 'TerminalObservation';
}
