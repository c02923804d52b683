import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator.js';
import { ServerActivity } from './server-activity.js';

/**
 * The agent-server version whose routes and shapes this service speaks. The reference's clients gate
 * features on it (e.g. "workspaces requires 1.23.0"), so it names what we implement, not our release.
 */
export const REFERENCE_COMPATIBLE_VERSION = '1.11.4';
export const SERVICE_VERSION = '0.1.0';

/** The reference's ServerInfo, plus our own release. */
export class ServerInfoDto {
  @ApiProperty({ description: 'Seconds since the process started' }) uptime: number;
  @ApiProperty({ description: 'Seconds since the last request other than monitoring ones' }) idle_time: number;
  @ApiProperty({ example: 'Agent Conversation Service' }) title: string;
  @ApiProperty({ description: 'The reference agent-server version this service is compatible with', example: REFERENCE_COMPATIBLE_VERSION }) version: string;
  @ApiProperty({ description: 'This service\'s own release', example: SERVICE_VERSION }) service_version: string;
  @ApiProperty({ example: '/docs' }) docs: string;
  @ApiProperty({ example: '/docs', description: 'There is no ReDoc page: the Swagger UI again' }) redoc: string;
}

@ApiTags('Server')
@Public()
@Controller()
export class ServerInfoController {
  constructor(private readonly activity: ServerActivity) {}

  @Get('server_info')
  @ApiOperation({ summary: 'Uptime, idle time and version (no session key needed, as the reference)' })
  @ApiOkResponse({ type: ServerInfoDto })
  serverInfo(): ServerInfoDto {
    return this.info();
  }

  @Get()
  @ApiOperation({ summary: 'The same as /server_info' })
  @ApiOkResponse({ type: ServerInfoDto })
  root(): ServerInfoDto {
    return this.info();
  }

  private info(): ServerInfoDto {
    return {
      uptime: this.activity.uptimeSeconds(),
      idle_time: this.activity.idleSeconds(),
      title: 'Agent Conversation Service',
      version: REFERENCE_COMPATIBLE_VERSION,
      service_version: SERVICE_VERSION,
      docs: '/docs',
      redoc: '/docs',
    };
  }
}
