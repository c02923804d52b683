import {
  BrowserAction,
  BrowserClickAction,
  BrowserCloseTabAction,
  BrowserGetContentAction,
  BrowserGetStateAction,
  BrowserGetStorageAction,
  BrowserGoBackAction,
  BrowserListTabsAction,
  BrowserNavigateAction,
  BrowserScrollAction,
  BrowserSetStorageAction,
  BrowserStartRecordingAction,
  BrowserStopRecordingAction,
  BrowserSwitchTabAction,
  BrowserTypeAction,
} from './browser-action.dto.js';
import { FinishAction, MCPToolAction, TaskTrackerAction, TerminalAction, ThinkAction } from './builtin-action.dto.js';
import { unionSchema, unrecognizedKindClass } from './dto-field.decorators.js';
import type { DtoUnion } from './dto-field.registry.js';
import {
  EditAction,
  FileEditorAction,
  GlobAction,
  GrepAction,
  ListDirectoryAction,
  PlanningFileEditorAction,
  ReadFileAction,
  WriteFileAction,
} from './file-action.dto.js';

/** Every Action variant by its `kind`. */
export const ACTION_CLASSES = {
  MCPToolAction,
  FinishAction,
  ThinkAction,
  BrowserAction,
  BrowserClickAction,
  BrowserCloseTabAction,
  BrowserGetContentAction,
  BrowserGetStateAction,
  BrowserGetStorageAction,
  BrowserGoBackAction,
  BrowserListTabsAction,
  BrowserNavigateAction,
  BrowserScrollAction,
  BrowserSetStorageAction,
  BrowserStartRecordingAction,
  BrowserStopRecordingAction,
  BrowserSwitchTabAction,
  BrowserTypeAction,
  FileEditorAction,
  EditAction,
  ListDirectoryAction,
  ReadFileAction,
  WriteFileAction,
  GlobAction,
  GrepAction,
  PlanningFileEditorAction,
  TaskTrackerAction,
  TerminalAction,
} as const;

export type ActionKind = keyof typeof ACTION_CLASSES;
export type ActionOf<K extends ActionKind> = InstanceType<(typeof ACTION_CLASSES)[K]>;
export type Action = ActionOf<ActionKind>;

export const ACTION_KINDS = Object.keys(ACTION_CLASSES) as ActionKind[];

export const ACTION_UNION: DtoUnion = {
  name: 'Action',
  discriminator: 'kind',
  members: ACTION_CLASSES,
  fallback: unrecognizedKindClass('Action', ACTION_KINDS),
};

/** Swagger schema of the Action union (needs every class of ACTION_CLASSES among the extra models). */
export function actionUnionSchema(): Record<string, unknown> {
  return unionSchema(ACTION_UNION);
}
