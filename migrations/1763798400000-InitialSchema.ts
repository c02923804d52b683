import type { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763798400000 implements MigrationInterface {
  name = 'InitialSchema1763798400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);

    await queryRunner.query(`
      CREATE TABLE users (
        id text PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE session_keys (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        key_hash text NOT NULL UNIQUE,
        label text,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);

    await queryRunner.query(`
      CREATE TABLE conversations (
        id uuid PRIMARY KEY,
        owner_id text NOT NULL REFERENCES users(id),
        title text,
        execution_status text NOT NULL DEFAULT 'idle',
        confirmation_policy jsonb NOT NULL DEFAULT '{"kind":"NeverConfirm"}',
        max_iterations integer NOT NULL DEFAULT 500,
        stuck_detection boolean NOT NULL DEFAULT true,
        agent jsonb,
        workspace jsonb,
        security_analyzer jsonb,
        tags jsonb NOT NULL DEFAULT '{}',
        stats jsonb NOT NULL DEFAULT '{}',
        secrets text,
        options jsonb NOT NULL DEFAULT '{}',
        last_seq bigint NOT NULL DEFAULT -1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX conversations_owner_created ON conversations (owner_id, created_at DESC, id DESC)`);

    // One row per event, immutable. seq is the gapless position inside the conversation,
    // allocated from conversations.last_seq in the appending statement.
    await queryRunner.query(`
      CREATE TABLE events (
        conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        id text NOT NULL,
        kind text NOT NULL,
        source text NOT NULL,
        timestamp timestamptz NOT NULL,
        payload jsonb NOT NULL,
        search_text text NOT NULL DEFAULT '',
        idempotency_key text,
        PRIMARY KEY (conversation_id, seq)
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX events_conversation_event_id ON events (conversation_id, id)`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX events_idempotency ON events (conversation_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX events_conversation_kind ON events (conversation_id, kind, seq)`);
    await queryRunner.query(`CREATE INDEX events_conversation_timestamp ON events (conversation_id, timestamp)`);
    await queryRunner.query(`CREATE INDEX events_search_text_trgm ON events USING gin (search_text gin_trgm_ops)`);

    await queryRunner.query(`
      CREATE TABLE settings (
        user_id text PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        values jsonb NOT NULL DEFAULT '{}',
        secrets text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE settings`);
    await queryRunner.query(`DROP TABLE events`);
    await queryRunner.query(`DROP TABLE conversations`);
    await queryRunner.query(`DROP TABLE session_keys`);
    await queryRunner.query(`DROP TABLE users`);
  }
}
