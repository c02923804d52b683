import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MASKED_SECRET } from '../conversations/conversation-record.js';
import { ConversationsService, type ConversationSecrets } from '../conversations/conversations.service.js';
import { SecretCipher } from '../settings/secret-cipher.js';
import { toSecretSources, toSecurityAnalyzer } from '../conversations/conversation-secret-sources.js';

/** What the conversation's encrypted secrets column holds besides ConversationSecrets' own fields. */
type StoredSecrets = ConversationSecrets;

/**
 * POST .../secrets and .../security_analyzer. Secrets join the conversation's encrypted secrets and
 * are never served back; an analyzer's api_key is kept there too and shown masked.
 */
@Injectable()
export class ConversationSecretsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: SecretCipher,
    private readonly conversations: ConversationsService,
  ) {}

  /** Adds the secrets, replacing those with the same names. */
  async merge(conversationId: string, secrets: Record<string, unknown>): Promise<void> {
    const sources = toSecretSources(secrets);
    await this.update(conversationId, (stored) => ({ ...stored, secrets: { ...(stored.secrets ?? {}), ...sources } }));
  }

  async setSecurityAnalyzer(conversationId: string, requested: unknown): Promise<void> {
    const { analyzer, apiKey } = toSecurityAnalyzer(requested, MASKED_SECRET);
    await this.update(conversationId, (stored) => {
      const { security_analyzer_api_key: _previous, ...rest } = stored;
      return apiKey ? { ...rest, security_analyzer_api_key: apiKey } : rest;
    });
    await this.conversations.changeState(conversationId, 'security_analyzer', analyzer);
  }

  /** Read, change and write the encrypted column under a row lock, so concurrent updates all land. */
  private async update(conversationId: string, change: (stored: StoredSecrets) => StoredSecrets): Promise<void> {
    const context = `conversation:${conversationId}`;
    await this.dataSource.transaction(async (manager) => {
      const rows: Array<{ secrets: string | null }> = await manager.query(
        'SELECT secrets FROM conversations WHERE id = $1 FOR UPDATE',
        [conversationId],
      );
      if (rows.length === 0) throw new NotFoundException({ detail: `Conversation not found: ${conversationId}` });
      const stored = rows[0].secrets ? (JSON.parse(this.cipher.decrypt(rows[0].secrets, context)) as StoredSecrets) : {};
      const changed = change(stored);
      const encrypted = Object.keys(changed).length ? this.cipher.encrypt(JSON.stringify(changed), context) : null;
      await manager.query('UPDATE conversations SET secrets = $2 WHERE id = $1', [conversationId, encrypted]);
    });
  }
}
