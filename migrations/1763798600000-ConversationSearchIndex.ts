import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The text search index keyed by conversation first: a `query` filter then only visits the
 * matches of its own conversation, so its cost no longer grows with the whole table.
 */
export class ConversationSearchIndex1763798600000 implements MigrationInterface {
  name = 'ConversationSearchIndex1763798600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS btree_gin`);
    await queryRunner.query(
      `CREATE INDEX events_conversation_search_trgm ON events USING gin (conversation_id, search_text gin_trgm_ops)`,
    );
    await queryRunner.query(`DROP INDEX events_search_text_trgm`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX events_search_text_trgm ON events USING gin (search_text gin_trgm_ops)`);
    await queryRunner.query(`DROP INDEX events_conversation_search_trgm`);
  }
}
