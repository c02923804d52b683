import { Controller, Get, HttpCode, Post, Req, Res, StreamableFile, UseInterceptors } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiQuery,
  ApiTags,
  type ApiBodyOptions,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { RequestValidationException } from '../common/validation/validation-issue.js';
import { SuccessDto } from '../events/dto/requests/send-message.dto.js';
import { requestedPath } from './requested-path.js';
import { UPLOAD_FIELD, WorkspaceUploadInterceptor, type UploadRequest } from './upload.interceptor.js';
import { WorkspaceFilesService } from './workspace-files.service.js';

const PATH_DESCRIPTION =
  'A path inside your workspace root (WORKSPACE_ROOT/<you>/, the prefix of your conversations\' working_dir): ' +
  'absolute, or relative to that root. A path outside it, also through a symbolic link, is 403.';
const PATH_QUERY = { name: 'path', required: false, description: `${PATH_DESCRIPTION} Required unless given in the URL path.` } as const;
const WILDCARD_PARAM = { name: 'path', description: `${PATH_DESCRIPTION} An absolute path keeps its leading slash (…/download//abs/file).` } as const;
const UPLOAD_BODY: ApiBodyOptions = {
  schema: { type: 'object', required: [UPLOAD_FIELD], properties: { [UPLOAD_FIELD]: { type: 'string', format: 'binary' } } },
};

@ApiTags('Files')
@Controller('api/file')
export class FilesController {
  constructor(private readonly files: WorkspaceFilesService) {}

  @Post('upload')
  @HttpCode(200)
  @UseInterceptors(WorkspaceUploadInterceptor)
  @ApiOperation({ summary: 'Upload a file (multipart field "file") into your workspace; it replaces the file at path' })
  @ApiConsumes('multipart/form-data')
  @ApiQuery(PATH_QUERY)
  @ApiBody(UPLOAD_BODY)
  @ApiOkResponse({ type: SuccessDto })
  @ApiForbiddenResponse({ description: 'The path is outside your workspace root' })
  @ApiPayloadTooLargeResponse({ description: 'Larger than MAX_UPLOAD_BYTES' })
  upload(@Req() request: UploadRequest): Promise<SuccessDto> {
    return this.finishUpload(request);
  }

  @Post('upload/*path')
  @HttpCode(200)
  @UseInterceptors(WorkspaceUploadInterceptor)
  @ApiOperation({ summary: 'Upload a file, its path in the URL (the reference\'s form)' })
  @ApiConsumes('multipart/form-data')
  @ApiParam(WILDCARD_PARAM)
  @ApiBody(UPLOAD_BODY)
  @ApiOkResponse({ type: SuccessDto })
  uploadToPath(@Req() request: UploadRequest): Promise<SuccessDto> {
    return this.finishUpload(request);
  }

  @Get('download')
  @ApiOperation({ summary: 'Download a file of your workspace' })
  @ApiQuery(PATH_QUERY)
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The file\'s bytes', schema: { type: 'string', format: 'binary' } })
  @ApiNotFoundResponse({ description: 'No such file' })
  @ApiForbiddenResponse({ description: 'The path is outside your workspace root' })
  download(@CurrentUser() userId: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<StreamableFile> {
    return this.streamFile(userId, request, response);
  }

  @Get('download/*path')
  @ApiOperation({ summary: 'Download a file, its path in the URL (the reference\'s form)' })
  @ApiParam(WILDCARD_PARAM)
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The file\'s bytes', schema: { type: 'string', format: 'binary' } })
  downloadFromPath(@CurrentUser() userId: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<StreamableFile> {
    return this.streamFile(userId, request, response);
  }

  private async finishUpload(request: UploadRequest): Promise<SuccessDto> {
    const stored = request.file?.path;
    if (!stored) throw RequestValidationException.single(['body', UPLOAD_FIELD], 'Field required: a multipart/form-data part named "file"', 'missing');
    await this.files.commit(request.uploadTarget!, stored);
    return { success: true };
  }

  private async streamFile(userId: string, request: Request, response: Response): Promise<StreamableFile> {
    const { value, loc } = requestedPath(request);
    const { handle, stats, fileName } = await this.files.openForDownload(userId, value, loc);
    response.attachment(fileName);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    return new StreamableFile(handle.createReadStream(), { length: stats.size });
  }
}
