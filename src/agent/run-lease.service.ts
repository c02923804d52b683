import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

export interface RunLease {
  conversationId: string;
  generation: number;
}

/** Lease timing; tests shorten it through RUN_LEASE_TTL_MS. */
export function leaseTtlMs(): number {
  return Number(process.env.RUN_LEASE_TTL_MS) || 30_000;
}

// Each UPDATE ... RETURNING is wrapped in a CTE: TypeORM's query() answers a bare UPDATE with [rows, count].

/**
 * Who runs a conversation's loop, kept in PostgreSQL so any instance may receive "run" and a
 * dead instance's conversations are taken over once its lease expires.
 */
@Injectable()
export class RunLeaseService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get holder(): string {
    return this.config.instanceId;
  }

  /** Takes the lease when nobody holds a live one; the generation fences every later write. */
  async acquire(conversationId: string): Promise<RunLease | null> {
    const rows: Array<{ run_generation: string }> = await this.dataSource.query(
      `WITH taken AS (
         UPDATE conversations
            SET run_holder = $2, run_generation = run_generation + 1,
                run_expires_at = now() + ($3 || ' milliseconds')::interval, run_requested = false
          WHERE id = $1 AND (run_holder IS NULL OR run_expires_at < now())
          RETURNING run_generation
       ) SELECT run_generation FROM taken`,
      [conversationId, this.holder, String(leaseTtlMs())],
    );
    return rows.length ? { conversationId, generation: Number(rows[0].run_generation) } : null;
  }

  /** False when the lease was lost (expired and taken, or the conversation deleted). */
  async renew(lease: RunLease): Promise<boolean> {
    const rows = await this.dataSource.query(
      `WITH renewed AS (
         UPDATE conversations SET run_expires_at = now() + ($3 || ' milliseconds')::interval
          WHERE id = $1 AND run_generation = $2 AND run_holder = $4 RETURNING id
       ) SELECT id FROM renewed`,
      [lease.conversationId, lease.generation, String(leaseTtlMs()), this.holder],
    );
    return rows.length > 0;
  }

  /** Gives the lease up; returns whether a run was requested meanwhile (then the caller runs again). */
  async release(lease: RunLease): Promise<boolean> {
    const rows: Array<{ run_requested: boolean }> = await this.dataSource.query(
      `WITH released AS (
         UPDATE conversations SET run_holder = NULL, run_expires_at = NULL
          WHERE id = $1 AND run_generation = $2 RETURNING run_requested
       ) SELECT run_requested FROM released`,
      [lease.conversationId, lease.generation],
    );
    return rows[0]?.run_requested ?? false;
  }

  /** Marks that a run is wanted, for the current holder to notice when it finishes. */
  async markRunRequested(conversationId: string): Promise<void> {
    await this.dataSource.query('UPDATE conversations SET run_requested = true WHERE id = $1', [conversationId]);
  }

  /** Withdraws a pending run request, whoever holds the lease (a pause). */
  async cancelRunRequest(conversationId: string): Promise<void> {
    await this.dataSource.query('UPDATE conversations SET run_requested = false WHERE id = $1', [conversationId]);
  }

  async clearRunRequested(lease: RunLease): Promise<void> {
    // Only when set: otherwise every step would rewrite (and commit) the conversation row for nothing.
    await this.dataSource.query('UPDATE conversations SET run_requested = false WHERE id = $1 AND run_generation = $2 AND run_requested', [
      lease.conversationId,
      lease.generation,
    ]);
  }

  /** Conversations left "running" whose lease holder is gone. */
  async orphanedRuns(limit = 20): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM conversations
        WHERE execution_status = 'running' AND (run_holder IS NULL OR run_expires_at < now())
        ORDER BY run_expires_at NULLS FIRST LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.id);
  }

  async executionStatus(conversationId: string): Promise<string | null> {
    const rows: Array<{ execution_status: string }> = await this.dataSource.query(
      'SELECT execution_status FROM conversations WHERE id = $1',
      [conversationId],
    );
    return rows[0]?.execution_status ?? null;
  }
}
