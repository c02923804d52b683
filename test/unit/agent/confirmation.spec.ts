import { needsConfirmation } from '../../../src/agent/confirmation.js';

const act = (toolName: string, securityRisk = 'UNKNOWN') => ({ toolName, securityRisk });

describe('needsConfirmation', () => {
  it('never asks for a batch of only think and finish, whatever the policy', () => {
    expect(needsConfirmation({ kind: 'AlwaysConfirm' }, [act('think'), act('finish')])).toBe(false);
  });

  it('NeverConfirm never asks; AlwaysConfirm asks for anything that acts', () => {
    expect(needsConfirmation({ kind: 'NeverConfirm' }, [act('terminal', 'HIGH')])).toBe(false);
    expect(needsConfirmation({ kind: 'AlwaysConfirm' }, [act('think'), act('terminal', 'LOW')])).toBe(true);
  });

  it.each([
    ['HIGH', 'HIGH', true],
    ['HIGH', 'MEDIUM', false],
    ['MEDIUM', 'MEDIUM', true],
    ['MEDIUM', 'LOW', false],
    ['LOW', 'LOW', true],
  ] as const)('ConfirmRisky threshold %s asks for %s: %s', (threshold, risk, asks) => {
    expect(needsConfirmation({ kind: 'ConfirmRisky', threshold, confirm_unknown: false }, [act('terminal', risk)])).toBe(asks);
  });

  it('ConfirmRisky treats UNKNOWN by confirm_unknown (asking by default)', () => {
    expect(needsConfirmation({ kind: 'ConfirmRisky' }, [act('terminal')])).toBe(true);
    expect(needsConfirmation({ kind: 'ConfirmRisky', threshold: 'HIGH', confirm_unknown: false }, [act('terminal')])).toBe(false);
  });

  it('one risky action makes the whole batch ask', () => {
    expect(needsConfirmation({ kind: 'ConfirmRisky' }, [act('glob', 'LOW'), act('terminal', 'HIGH')])).toBe(true);
  });
});
