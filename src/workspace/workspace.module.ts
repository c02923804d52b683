import { Module } from '@nestjs/common';
import { BashCommandsService } from './bash-commands.service.js';
import { BashController } from './bash.controller.js';
import { FilesController } from './files.controller.js';
import { WorkspaceUploadInterceptor } from './upload.interceptor.js';
import { UserWorkspaces } from './user-workspaces.js';
import { WorkspaceFilesService } from './workspace-files.service.js';

/** The reference's workspace routes (files, bash), confined to each caller's WORKSPACE_ROOT/<user>/. */
@Module({
  controllers: [FilesController, BashController],
  providers: [UserWorkspaces, WorkspaceFilesService, BashCommandsService, WorkspaceUploadInterceptor],
})
export class WorkspaceModule {}
