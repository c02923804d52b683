import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The run lease: one process at a time runs a conversation's agent loop. The holder renews
 * run_expires_at; every write the loop makes names run_generation, so a process that lost its
 * lease (paused past expiry, partitioned) cannot write after another took over.
 */
export class AgentRuns1763798500000 implements MigrationInterface {
  name = 'AgentRuns1763798500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE conversations
        ADD COLUMN run_holder text,
        ADD COLUMN run_generation bigint NOT NULL DEFAULT 0,
        ADD COLUMN run_expires_at timestamptz,
        ADD COLUMN run_requested boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `CREATE INDEX conversations_running ON conversations (run_expires_at) WHERE execution_status = 'running'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX conversations_running`);
    await queryRunner.query(`
      ALTER TABLE conversations
        DROP COLUMN run_holder, DROP COLUMN run_generation, DROP COLUMN run_expires_at, DROP COLUMN run_requested`);
  }
}
