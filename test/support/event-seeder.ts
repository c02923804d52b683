import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { EventAnnouncer } from '../../src/events/event-announcer.service.js';
import { EventStoreService } from '../../src/events/event-store.service.js';
import { completeEvent, assertValidEvent } from '../../src/events/dto/event-registry.js';

/**
 * Appends events through the service's own event store on a test database, for kinds that only
 * the agent produces. Every event is completed and validated exactly as the service would.
 */
export class EventSeeder {
  private constructor(
    private readonly dataSource: DataSource,
    private readonly announcer: EventAnnouncer,
    readonly store: EventStoreService,
  ) {}

  static async connect(url: string): Promise<EventSeeder> {
    const dataSource = new DataSource({ type: 'postgres', url, extra: { max: 4 } });
    await dataSource.initialize();
    const announcer = new EventAnnouncer(dataSource);
    return new EventSeeder(dataSource, announcer, new EventStoreService(dataSource, announcer));
  }

  async append(conversationId: string, fields: Record<string, unknown>): Promise<Record<string, unknown>> {
    const event = completeEvent(fields);
    assertValidEvent(event);
    await this.store.append(conversationId, event as Record<string, unknown>);
    return event;
  }

  async close(): Promise<void> {
    await this.announcer.drain();
    await this.dataSource.destroy();
  }
}
