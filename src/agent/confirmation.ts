import type { ConfirmationPolicy } from '../conversations/entities/conversation.entity.js';

const RISK_RANK: Record<string, number> = { LOW: 1, MEDIUM: 2, HIGH: 3 };
/** Tools that only think or end the run never ask. */
const NEVER_ASKS = new Set(['think', 'finish']);

export interface PlannedAction {
  toolName: string;
  securityRisk: string;
}

/** Whether the policy asks the user before this batch of actions runs. */
export function needsConfirmation(policy: ConfirmationPolicy, actions: PlannedAction[]): boolean {
  if (actions.length === 0 || actions.every((action) => NEVER_ASKS.has(action.toolName))) return false;
  switch (policy.kind) {
    case 'NeverConfirm':
      return false;
    case 'AlwaysConfirm':
      return true;
    case 'ConfirmRisky': {
      const threshold = RISK_RANK[policy.threshold ?? 'HIGH'];
      const confirmUnknown = policy.confirm_unknown ?? true;
      return actions.some((action) =>
        action.securityRisk in RISK_RANK ? RISK_RANK[action.securityRisk] >= threshold : confirmUnknown,
      );
    }
  }
}
