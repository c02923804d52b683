import {
  BrowserObservation,
  FinishObservation,
  MCPToolObservation,
  TaskTrackerObservation,
  TerminalObservation,
  ThinkObservation,
} from './builtin-observation.dto.js';
import { unionSchema, unrecognizedKindClass } from './dto-field.decorators.js';
import type { DtoUnion } from './dto-field.registry.js';
import {
  EditObservation,
  FileEditorObservation,
  GlobObservation,
  GrepObservation,
  ListDirectoryObservation,
  PlanningFileEditorObservation,
  ReadFileObservation,
  WriteFileObservation,
} from './file-observation.dto.js';

/** Every Observation variant by its `kind`. */
export const OBSERVATION_CLASSES = {
  MCPToolObservation,
  FinishObservation,
  ThinkObservation,
  BrowserObservation,
  FileEditorObservation,
  EditObservation,
  ListDirectoryObservation,
  ReadFileObservation,
  WriteFileObservation,
  GlobObservation,
  GrepObservation,
  PlanningFileEditorObservation,
  TaskTrackerObservation,
  TerminalObservation,
} as const;

export type ObservationKind = keyof typeof OBSERVATION_CLASSES;
export type ObservationOf<K extends ObservationKind> = InstanceType<(typeof OBSERVATION_CLASSES)[K]>;
export type Observation = ObservationOf<ObservationKind>;

export const OBSERVATION_KINDS = Object.keys(OBSERVATION_CLASSES) as ObservationKind[];

export const OBSERVATION_UNION: DtoUnion = {
  name: 'Observation',
  discriminator: 'kind',
  members: OBSERVATION_CLASSES,
  fallback: unrecognizedKindClass('Observation', OBSERVATION_KINDS),
};

/** Swagger schema of the Observation union (needs every class of OBSERVATION_CLASSES among the extra models). */
export function observationUnionSchema(): Record<string, unknown> {
  return unionSchema(OBSERVATION_UNION);
}
