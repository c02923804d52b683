import { InitialSchema1763798400000 } from './1763798400000-InitialSchema.js';
import { AgentRuns1763798500000 } from './1763798500000-AgentRuns.js';
import { ConversationSearchIndex1763798600000 } from './1763798600000-ConversationSearchIndex.js';

/** Every migration in order; the data source and the migration runner load this list. */
export const MIGRATIONS = [InitialSchema1763798400000, AgentRuns1763798500000, ConversationSearchIndex1763798600000];
