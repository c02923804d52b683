import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export const MAX_COMMAND_TIMEOUT_SECONDS = 3600;

/** The reference's ExecuteBashRequest. */
export class ExecuteBashDto {
  @ApiProperty({ description: 'The bash command to execute', example: 'ls -la' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100_000)
  command: string;

  @ApiPropertyOptional({
    nullable: true,
    description: 'The working directory: inside your workspace root (absolute, or relative to it); default the root itself',
  })
  @IsOptional()
  @IsString()
  cwd?: string | null;

  @ApiPropertyOptional({ description: 'Seconds the command may run before it is killed', default: 300, minimum: 1, maximum: MAX_COMMAND_TIMEOUT_SECONDS })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_COMMAND_TIMEOUT_SECONDS)
  timeout: number = 300;
}

/** The reference's BashOutput: the whole output of one command, as one piece (order 0). */
export class BashOutputDto {
  @ApiProperty() id: string;
  @ApiProperty({ format: 'date-time' }) timestamp: string;
  @ApiProperty() command_id: string;
  @ApiProperty({ example: 0 }) order: number;
  @ApiProperty({ nullable: true, type: Number, description: 'null while running; -1 when the command was killed at its timeout' }) exit_code: number | null;
  @ApiProperty({ nullable: true, type: String }) stdout: string | null;
  @ApiProperty({ nullable: true, type: String }) stderr: string | null;
  @ApiProperty({ enum: ['BashOutput'] }) kind: 'BashOutput';
}
