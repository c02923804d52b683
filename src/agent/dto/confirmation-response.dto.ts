import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';

export class ConfirmationResponseDto {
  @ApiProperty({ example: true, description: 'true runs the waiting actions; false rejects them' })
  @IsDefined()
  @IsBoolean()
  accept: boolean;

  @ApiPropertyOptional({ example: 'Do not delete files', description: 'Why the actions were rejected' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}
