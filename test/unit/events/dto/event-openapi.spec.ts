import { Controller, Get, Module } from '@nestjs/common';
import { ApiOkResponse, DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import {
  ACTION_KINDS,
  actionUnionSchema,
  EVENT_KINDS,
  eventExtraModels,
  eventUnionSchema,
  eventVariantClasses,
  OBSERVATION_KINDS,
  observationUnionSchema,
} from '../../../../src/events/dto/index.js';

@Controller('events')
class EventsProbeController {
  @Get()
  @ApiOkResponse({ schema: eventUnionSchema() })
  get(): void {}
}

@Module({ controllers: [EventsProbeController] })
class EventsProbeModule {}

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => refsIn(item, found));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.push(inner);
      else refsIn(inner, found);
    }
  }
  return found;
}

describe('event schemas for Swagger', () => {
  let document: OpenAPIObject;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [EventsProbeModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    document = SwaggerModule.createDocument(app, new DocumentBuilder().build(), { extraModels: eventExtraModels });
    await app.close();
  });

  it('describes the Event union as oneOf the 14 variants with a kind discriminator', () => {
    const schema = eventUnionSchema() as { oneOf: Array<{ $ref: string }>; discriminator: any };
    expect(eventVariantClasses.map((cls) => cls.name)).toEqual(EVENT_KINDS);
    expect(schema.oneOf.map((ref) => ref.$ref)).toEqual(EVENT_KINDS.map((kind) => `#/components/schemas/${kind}`));
    expect(schema.discriminator.propertyName).toBe('kind');
    expect(Object.keys(schema.discriminator.mapping)).toEqual(EVENT_KINDS);
  });

  it('describes the Action and Observation unions the same way', () => {
    expect(Object.keys((actionUnionSchema() as any).discriminator.mapping)).toEqual(ACTION_KINDS);
    expect(Object.keys((observationUnionSchema() as any).discriminator.mapping)).toEqual(OBSERVATION_KINDS);
  });

  it('emits a schema for every variant and resolves every reference', () => {
    const schemas = document.components?.schemas ?? {};
    for (const kind of [...EVENT_KINDS, ...ACTION_KINDS, ...OBSERVATION_KINDS]) expect(schemas[kind]).toBeDefined();
    for (const ref of refsIn(document)) {
      expect(schemas[ref.replace('#/components/schemas/', '')]).toBeDefined();
    }
  });

  it('documents required fields, defaults, nullables and bounds', () => {
    const schemas = document.components!.schemas as Record<string, any>;
    expect(schemas.ActionEvent.required).toEqual(
      expect.arrayContaining(['kind', 'thought', 'tool_name', 'tool_call_id', 'tool_call', 'llm_response_id']),
    );
    expect(schemas.ActionEvent.required).not.toContain('source');
    expect(schemas.ActionEvent.properties.source.default).toBe('agent');
    expect(schemas.ActionEvent.properties.action.nullable).toBe(true);
    expect(schemas.ActionEvent.properties.action.discriminator.propertyName).toBe('kind');
    expect(schemas.MessageEvent.required).toContain('source');
    expect(schemas.Condensation.properties.summary_offset).toMatchObject({ type: 'integer', minimum: 0, nullable: true });
    expect(schemas.CriticResult.properties.score).toMatchObject({ minimum: 0, maximum: 1 });
    expect(schemas.BrowserCloseTabAction.properties.tab_id).toMatchObject({ minLength: 4, maxLength: 4 });
    expect(schemas.Message.properties.content.items.discriminator.propertyName).toBe('type');
    expect(schemas.SecurityRisk.enum).toEqual(['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH']);
  });
});
