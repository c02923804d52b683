import { maskSecrets, secretEnvironment } from '../../../src/agent/conversation-secret-env.js';

describe('conversation secrets for the shell', () => {
  it('masks every secret value in every string, longest first, leaving the structure alone', () => {
    const observation = { content: [{ type: 'text', text: 'token abcdef and abcdefgh' }], exit_code: 0, nested: { note: 'abcdefgh!' } };
    expect(maskSecrets(observation, ['abcdef', 'abcdefgh'])).toEqual({
      content: [{ type: 'text', text: 'token <secret-hidden> and <secret-hidden>' }],
      exit_code: 0,
      nested: { note: '<secret-hidden>!' },
    });
  });

  it('does not mask values too short to be secrets (they would blank ordinary text)', () => {
    expect(maskSecrets({ text: 'a b c' }, ['a'])).toEqual({ text: 'a b c' });
  });

  it('gives static secrets with valid variable names to the shell, and leaves out invalid names and empty values', async () => {
    expect(
      await secretEnvironment({
        API_TOKEN: { kind: 'StaticSecret', value: 'v1', description: null },
        'not-a-name': { kind: 'StaticSecret', value: 'v2', description: null },
        EMPTY: { kind: 'StaticSecret', value: null, description: null },
      }),
    ).toEqual({ API_TOKEN: 'v1' });
  });
});
