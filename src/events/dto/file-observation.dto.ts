import {
  BooleanField,
  ConstantField,
  EnumField,
  IntegerArrayField,
  IntegerField,
  NestedField,
  StringArrayField,
  StringField,
} from './dto-field.decorators.js';
import { FILE_EDITOR_COMMANDS, type FileEditorCommand } from './event-enums.js';
import { ObservationBase } from './observation-base.dto.js';

/** Observations of the file tools: the file editors, edit/read/write/list, glob and grep. */

/** Fields shared by FileEditorObservation and PlanningFileEditorObservation. */
abstract class FileEditingObservationFields extends ObservationBase {
  @EnumField(FILE_EDITOR_COMMANDS, { required: true })
  command: FileEditorCommand;

  @StringField({ nullable: true })
  path: string | null;

  @BooleanField({ default: true, description: 'The file existed before the command' })
  prev_exist: boolean;

  @StringField({ nullable: true })
  old_content: string | null;

  @StringField({ nullable: true })
  new_content: string | null;
}

export class FileEditorObservation extends FileEditingObservationFields {
  @ConstantField('FileEditorObservation')
  kind: 'FileEditorObservation';
}

export class PlanningFileEditorObservation extends FileEditingObservationFields {
  @ConstantField('PlanningFileEditorObservation')
  kind: 'PlanningFileEditorObservation';
}

export class EditObservation extends ObservationBase {
  @StringField({ nullable: true })
  file_path: string | null;

  @BooleanField({ default: false })
  is_new_file: boolean;

  @IntegerField({ default: 0 })
  replacements_made: number;

  @StringField({ nullable: true })
  old_content: string | null;

  @StringField({ nullable: true })
  new_content: string | null;

  @ConstantField('EditObservation')
  kind: 'EditObservation';
}

export class FileEntry {
  @StringField({ required: true })
  name: string;

  @StringField({ required: true })
  path: string;

  @BooleanField({ required: true })
  is_directory: boolean;

  @IntegerField({ required: true, description: 'Size in bytes' })
  size: number;

  @StringField({ required: true, format: 'date-time' })
  modified_time: string;
}

export class ListDirectoryObservation extends ObservationBase {
  @StringField({ nullable: true })
  dir_path: string | null;

  @NestedField(() => FileEntry, { isArray: true, default: [] })
  entries: FileEntry[];

  @IntegerField({ default: 0 })
  total_count: number;

  @BooleanField({ default: false })
  is_truncated: boolean;

  @ConstantField('ListDirectoryObservation')
  kind: 'ListDirectoryObservation';
}

export class ReadFileObservation extends ObservationBase {
  @StringField({ required: true })
  file_path: string;

  @StringField({ default: '' })
  file_content: string;

  @BooleanField({ default: false })
  is_truncated: boolean;

  @IntegerArrayField({
    nullable: true,
    minItems: 2,
    maxItems: 2,
    description: '1-based [first, last] lines shown when truncated',
  })
  lines_shown: [number, number] | null;

  @IntegerField({ nullable: true })
  total_lines: number | null;

  @ConstantField('ReadFileObservation')
  kind: 'ReadFileObservation';
}

export class WriteFileObservation extends ObservationBase {
  @StringField({ nullable: true })
  file_path: string | null;

  @BooleanField({ default: false })
  is_new_file: boolean;

  @StringField({ nullable: true })
  old_content: string | null;

  @StringField({ nullable: true })
  new_content: string | null;

  @ConstantField('WriteFileObservation')
  kind: 'WriteFileObservation';
}

export class GlobObservation extends ObservationBase {
  @StringArrayField({ required: true })
  files: string[];

  @StringField({ required: true })
  pattern: string;

  @StringField({ required: true })
  search_path: string;

  @BooleanField({ default: false })
  truncated: boolean;

  @ConstantField('GlobObservation')
  kind: 'GlobObservation';
}

export class GrepObservation extends ObservationBase {
  @StringArrayField({ required: true })
  matches: string[];

  @StringField({ required: true })
  pattern: string;

  @StringField({ required: true })
  search_path: string;

  @StringField({ nullable: true })
  include_pattern: string | null;

  @BooleanField({ default: false })
  truncated: boolean;

  @ConstantField('GrepObservation')
  kind: 'GrepObservation';
}
