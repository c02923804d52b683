import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBody, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { BashCommandsService } from './bash-commands.service.js';
import { BashOutputDto, ExecuteBashDto } from './dto/execute-bash.dto.js';

@ApiTags('Bash')
@Controller('api/bash')
export class BashController {
  constructor(private readonly commands: BashCommandsService) {}

  @Post('execute_bash_command')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run one bash command in your workspace root (or a cwd inside it) and wait for its output',
    description:
      'The command runs as the service\'s operating-system user with a minimal environment; cwd is confined to ' +
      'your workspace root, the command itself is not sandboxed. stdout and stderr are capped; at the timeout the ' +
      'command and everything it started are killed and exit_code is -1.',
  })
  @ApiBody({ type: ExecuteBashDto, examples: { list: { value: { command: 'ls -la', timeout: 30 } } } })
  @ApiOkResponse({ type: BashOutputDto })
  @ApiForbiddenResponse({ description: 'cwd is outside your workspace root' })
  execute(@CurrentUser() userId: string, @Body() dto: ExecuteBashDto, @Res({ passthrough: true }) response: Response): Promise<BashOutputDto> {
    return this.commands.execute(userId, dto, abortedWhenClientLeaves(response));
  }
}

/** Aborts when the connection closes before the response was sent: a command nobody waits for is killed. */
function abortedWhenClientLeaves(response: Response): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}
