import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One immutable event at position `seq` of its conversation. `payload` is the event exactly as served. */
@Entity({ name: 'events' })
export class EventEntity {
  @PrimaryColumn({ name: 'conversation_id', type: 'uuid' })
  conversationId: string;

  @PrimaryColumn({ type: 'bigint' })
  seq: string;

  @Column({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  kind: string;

  @Column({ type: 'text' })
  source: string;

  @Column({ type: 'timestamptz' })
  timestamp: Date;

  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  /** Lower-cased string values of the payload, for the trigram-indexed `query` filter. */
  @Column({ name: 'search_text', type: 'text' })
  searchText: string;

  @Column({ name: 'idempotency_key', type: 'text', nullable: true })
  idempotencyKey: string | null;
}
