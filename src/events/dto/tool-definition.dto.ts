import { ValidateBy, type ValidationOptions } from 'class-validator';
import {
  BooleanField,
  ConstantField,
  FreeFormObjectField,
  NestedField,
  StringField,
  unionSchema,
  unrecognizedKindClass,
} from './dto-field.decorators.js';
import { isPlainObject, type DtoUnion } from './dto-field.registry.js';

/** The tools offered to the LLM, as recorded in SystemPromptEvent.tools. */

export class ToolAnnotations {
  @StringField({ nullable: true })
  title: string | null;

  @BooleanField({ default: false, description: 'The tool does not change its environment' })
  readOnlyHint: boolean;

  @BooleanField({ default: true, description: 'The tool may destroy data' })
  destructiveHint: boolean;

  @BooleanField({ default: false, description: 'Repeating a call has no further effect' })
  idempotentHint: boolean;

  @BooleanField({ default: true, description: 'The tool reaches outside systems' })
  openWorldHint: boolean;
}

abstract class ToolDefinitionBase {
  @StringField({ required: true })
  description: string;

  @StringField({ required: true, description: 'Kind of the Action the tool takes' })
  action_type: string;

  @StringField({ nullable: true, description: 'Kind of the Observation the tool returns' })
  observation_type: string | null;

  @NestedField(() => ToolAnnotations, { nullable: true })
  annotations: ToolAnnotations | null;

  @FreeFormObjectField({ nullable: true })
  meta: Record<string, unknown> | null;

  @StringField({ required: true, description: 'Name of the tool as the LLM sees it' })
  title: string;
}

// An MCP server's tool description is the server's own: we pass it through and only check its core.
function IsMcpToolSpec(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isMcpToolSpec',
      validator: {
        validate: (value: unknown) =>
          isPlainObject(value) && typeof value.name === 'string' && isPlainObject(value.inputSchema),
        defaultMessage: () => 'mcp_tool must be an object with a string name and an object inputSchema',
      },
    },
    options,
  );
}

export class MCPToolDefinition extends ToolDefinitionBase {
  @FreeFormObjectField({ required: true, description: 'The tool as the MCP server describes it (name, inputSchema, ...)' })
  @IsMcpToolSpec()
  mcp_tool: Record<string, unknown>;

  @ConstantField('MCPToolDefinition')
  kind: 'MCPToolDefinition';
}

export class FinishTool extends ToolDefinitionBase {
  @ConstantField('FinishTool')
  kind: 'FinishTool';
}

export class ThinkTool extends ToolDefinitionBase {
  @ConstantField('ThinkTool')
  kind: 'ThinkTool';
}

export class BrowserClickTool extends ToolDefinitionBase {
  @ConstantField('BrowserClickTool')
  kind: 'BrowserClickTool';
}

export class BrowserCloseTabTool extends ToolDefinitionBase {
  @ConstantField('BrowserCloseTabTool')
  kind: 'BrowserCloseTabTool';
}

export class BrowserGetContentTool extends ToolDefinitionBase {
  @ConstantField('BrowserGetContentTool')
  kind: 'BrowserGetContentTool';
}

export class BrowserGetStateTool extends ToolDefinitionBase {
  @ConstantField('BrowserGetStateTool')
  kind: 'BrowserGetStateTool';
}

export class BrowserGetStorageTool extends ToolDefinitionBase {
  @ConstantField('BrowserGetStorageTool')
  kind: 'BrowserGetStorageTool';
}

export class BrowserGoBackTool extends ToolDefinitionBase {
  @ConstantField('BrowserGoBackTool')
  kind: 'BrowserGoBackTool';
}

export class BrowserListTabsTool extends ToolDefinitionBase {
  @ConstantField('BrowserListTabsTool')
  kind: 'BrowserListTabsTool';
}

export class BrowserNavigateTool extends ToolDefinitionBase {
  @ConstantField('BrowserNavigateTool')
  kind: 'BrowserNavigateTool';
}

export class BrowserScrollTool extends ToolDefinitionBase {
  @ConstantField('BrowserScrollTool')
  kind: 'BrowserScrollTool';
}

export class BrowserSetStorageTool extends ToolDefinitionBase {
  @ConstantField('BrowserSetStorageTool')
  kind: 'BrowserSetStorageTool';
}

export class BrowserStartRecordingTool extends ToolDefinitionBase {
  @ConstantField('BrowserStartRecordingTool')
  kind: 'BrowserStartRecordingTool';
}

export class BrowserStopRecordingTool extends ToolDefinitionBase {
  @ConstantField('BrowserStopRecordingTool')
  kind: 'BrowserStopRecordingTool';
}

export class BrowserSwitchTabTool extends ToolDefinitionBase {
  @ConstantField('BrowserSwitchTabTool')
  kind: 'BrowserSwitchTabTool';
}

export class BrowserToolSet extends ToolDefinitionBase {
  @ConstantField('BrowserToolSet')
  kind: 'BrowserToolSet';
}

export class BrowserTypeTool extends ToolDefinitionBase {
  @ConstantField('BrowserTypeTool')
  kind: 'BrowserTypeTool';
}

export class FileEditorTool extends ToolDefinitionBase {
  @ConstantField('FileEditorTool')
  kind: 'FileEditorTool';
}

export class EditTool extends ToolDefinitionBase {
  @ConstantField('EditTool')
  kind: 'EditTool';
}

export class ListDirectoryTool extends ToolDefinitionBase {
  @ConstantField('ListDirectoryTool')
  kind: 'ListDirectoryTool';
}

export class ReadFileTool extends ToolDefinitionBase {
  @ConstantField('ReadFileTool')
  kind: 'ReadFileTool';
}

export class WriteFileTool extends ToolDefinitionBase {
  @ConstantField('WriteFileTool')
  kind: 'WriteFileTool';
}

export class GlobTool extends ToolDefinitionBase {
  @ConstantField('GlobTool')
  kind: 'GlobTool';
}

export class GrepTool extends ToolDefinitionBase {
  @ConstantField('GrepTool')
  kind: 'GrepTool';
}

export class PlanningFileEditorTool extends ToolDefinitionBase {
  @ConstantField('PlanningFileEditorTool')
  kind: 'PlanningFileEditorTool';
}

export class TaskTrackerTool extends ToolDefinitionBase {
  @ConstantField('TaskTrackerTool')
  kind: 'TaskTrackerTool';
}

export class TerminalTool extends ToolDefinitionBase {
  @ConstantField('TerminalTool')
  kind: 'TerminalTool';
}

/** Every ToolDefinition variant by its `kind`. */
export const TOOL_DEFINITION_CLASSES = {
  MCPToolDefinition,
  FinishTool,
  ThinkTool,
  BrowserClickTool,
  BrowserCloseTabTool,
  BrowserGetContentTool,
  BrowserGetStateTool,
  BrowserGetStorageTool,
  BrowserGoBackTool,
  BrowserListTabsTool,
  BrowserNavigateTool,
  BrowserScrollTool,
  BrowserSetStorageTool,
  BrowserStartRecordingTool,
  BrowserStopRecordingTool,
  BrowserSwitchTabTool,
  BrowserToolSet,
  BrowserTypeTool,
  FileEditorTool,
  EditTool,
  ListDirectoryTool,
  ReadFileTool,
  WriteFileTool,
  GlobTool,
  GrepTool,
  PlanningFileEditorTool,
  TaskTrackerTool,
  TerminalTool,
} as const;

export type ToolDefinitionKind = keyof typeof TOOL_DEFINITION_CLASSES;
export type ToolDefinition = InstanceType<(typeof TOOL_DEFINITION_CLASSES)[ToolDefinitionKind]>;

export const TOOL_DEFINITION_KINDS = Object.keys(TOOL_DEFINITION_CLASSES) as ToolDefinitionKind[];

export const TOOL_DEFINITION_UNION: DtoUnion = {
  name: 'ToolDefinition',
  discriminator: 'kind',
  members: TOOL_DEFINITION_CLASSES,
  fallback: unrecognizedKindClass('ToolDefinition', TOOL_DEFINITION_KINDS),
};

export function toolDefinitionUnionSchema(): Record<string, unknown> {
  return unionSchema(TOOL_DEFINITION_UNION);
}
