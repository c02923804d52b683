import { Injectable } from '@nestjs/common';
import { MASKED_SECRET } from '../conversations/conversation-record.js';
import { ConversationsService } from '../conversations/conversations.service.js';
import { toSecretSources, toSecurityAnalyzer } from '../conversations/conversation-secret-sources.js';

/**
 * POST .../secrets and .../security_analyzer. Secrets join the conversation's encrypted secrets and
 * are never served back; an analyzer's api_key is kept there too and shown masked.
 */
@Injectable()
export class ConversationSecretsService {
  constructor(private readonly conversations: ConversationsService) {}

  /** Adds the secrets, replacing those with the same names. */
  async merge(conversationId: string, secrets: Record<string, unknown>): Promise<void> {
    const sources = toSecretSources(secrets);
    await this.conversations.updateSecrets(conversationId, (stored) => ({ ...stored, secrets: { ...(stored.secrets ?? {}), ...sources } }));
  }

  async setSecurityAnalyzer(conversationId: string, requested: unknown): Promise<void> {
    const { analyzer, apiKey } = toSecurityAnalyzer(requested, MASKED_SECRET);
    await this.conversations.updateSecrets(conversationId, (stored) => {
      const { security_analyzer_api_key: _previous, ...rest } = stored;
      return apiKey ? { ...rest, security_analyzer_api_key: apiKey } : rest;
    });
    await this.conversations.changeState(conversationId, 'security_analyzer', analyzer);
  }
}
