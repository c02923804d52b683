/** Value sets shared by the event DTOs. Each is a const object or tuple so plain string literals type-check. */

export const EVENT_SOURCES = ['agent', 'user', 'environment'] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

export const SecurityRisk = {
  UNKNOWN: 'UNKNOWN',
  LOW: 'LOW',
  MEDIUM: 'MEDIUM',
  HIGH: 'HIGH',
} as const;
export type SecurityRisk = (typeof SecurityRisk)[keyof typeof SecurityRisk];
export const SECURITY_RISKS = Object.values(SecurityRisk);

export const MESSAGE_ROLES = ['user', 'system', 'assistant', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export const TOOL_CALL_ORIGINS = ['completion', 'responses'] as const;
export type ToolCallOrigin = (typeof TOOL_CALL_ORIGINS)[number];

export const REJECTION_SOURCES = ['user', 'hook'] as const;
export type RejectionSource = (typeof REJECTION_SOURCES)[number];

export const FILE_EDITOR_COMMANDS = ['view', 'create', 'str_replace', 'insert', 'undo_edit'] as const;
export type FileEditorCommand = (typeof FILE_EDITOR_COMMANDS)[number];

export const TASK_TRACKER_COMMANDS = ['view', 'plan'] as const;
export type TaskTrackerCommand = (typeof TASK_TRACKER_COMMANDS)[number];

export const TASK_STATUSES = ['todo', 'in_progress', 'done'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const SCROLL_DIRECTIONS = ['up', 'down'] as const;
export type ScrollDirection = (typeof SCROLL_DIRECTIONS)[number];
