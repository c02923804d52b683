import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

const MAX_CACHED = 50_000;

/**
 * Who owns a conversation. An owner never changes, so it is cached: every authorised request
 * saves a query. A conversation deleted by another instance may still pass here; the route then
 * finds nothing and answers 404 all the same.
 */
@Injectable()
export class ConversationOwners {
  private readonly cache = new Map<string, string>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async ownerOf(conversationId: string): Promise<string | null> {
    const cached = this.cache.get(conversationId);
    if (cached !== undefined) return cached;
    const rows: Array<{ owner_id: string }> = await this.dataSource.query(
      'SELECT owner_id FROM conversations WHERE id = $1',
      [conversationId],
    );
    const owner = rows[0]?.owner_id ?? null;
    if (owner !== null) {
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(conversationId, owner);
    }
    return owner;
  }

  forget(conversationId: string): void {
    this.cache.delete(conversationId);
  }
}
