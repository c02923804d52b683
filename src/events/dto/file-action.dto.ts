import {
  BooleanField,
  ConstantField,
  EnumField,
  IntegerArrayField,
  IntegerField,
  StringField,
} from './dto-field.decorators.js';
import { FILE_EDITOR_COMMANDS, type FileEditorCommand } from './event-enums.js';

/** Actions of the file tools: the file editors, edit/read/write/list, glob and grep. */

/** Fields shared by FileEditorAction and PlanningFileEditorAction. */
abstract class FileEditingActionFields {
  @EnumField(FILE_EDITOR_COMMANDS, { required: true })
  command: FileEditorCommand;

  @StringField({ required: true, description: 'Absolute path of the file or directory' })
  path: string;

  @StringField({ nullable: true, description: 'Content of the file to create (create)' })
  file_text: string | null;

  @StringField({ nullable: true, description: 'Text to replace (str_replace)' })
  old_str: string | null;

  @StringField({ nullable: true, description: 'Replacement text (str_replace) or text to insert (insert)' })
  new_str: string | null;

  @IntegerField({ nullable: true, minimum: 0, description: 'new_str is inserted after this line (insert)' })
  insert_line: number | null;

  @IntegerArrayField({ nullable: true, description: '1-based [start, end] lines to view; end -1 means to the end' })
  view_range: number[] | null;
}

export class FileEditorAction extends FileEditingActionFields {
  @ConstantField('FileEditorAction')
  kind: 'FileEditorAction';
}

export class PlanningFileEditorAction extends FileEditingActionFields {
  @ConstantField('PlanningFileEditorAction')
  kind: 'PlanningFileEditorAction';
}

export class EditAction {
  @StringField({ required: true })
  file_path: string;

  @StringField({ required: true })
  old_string: string;

  @StringField({ required: true })
  new_string: string;

  @IntegerField({ default: 1, minimum: 0, description: 'Number of replacements expected' })
  expected_replacements: number;

  @ConstantField('EditAction')
  kind: 'EditAction';
}

export class ListDirectoryAction {
  @StringField({ default: '.' })
  dir_path: string;

  @BooleanField({ default: false })
  recursive: boolean;

  @ConstantField('ListDirectoryAction')
  kind: 'ListDirectoryAction';
}

export class ReadFileAction {
  @StringField({ required: true })
  file_path: string;

  @IntegerField({ nullable: true, minimum: 0, description: '0-based line to start reading from' })
  offset: number | null;

  @IntegerField({ nullable: true, minimum: 1, description: 'Maximum number of lines to read' })
  limit: number | null;

  @ConstantField('ReadFileAction')
  kind: 'ReadFileAction';
}

export class WriteFileAction {
  @StringField({ required: true })
  file_path: string;

  @StringField({ required: true })
  content: string;

  @ConstantField('WriteFileAction')
  kind: 'WriteFileAction';
}

export class GlobAction {
  @StringField({ required: true })
  pattern: string;

  @StringField({ nullable: true, description: 'Directory to search; the workspace when null' })
  path: string | null;

  @ConstantField('GlobAction')
  kind: 'GlobAction';
}

export class GrepAction {
  @StringField({ required: true, description: 'Regular expression to search for' })
  pattern: string;

  @StringField({ nullable: true, description: 'Directory to search; the workspace when null' })
  path: string | null;

  @StringField({ nullable: true, description: 'Glob of the files to search' })
  include: string | null;

  @ConstantField('GrepAction')
  kind: 'GrepAction';
}
