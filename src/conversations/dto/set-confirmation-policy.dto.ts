import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, ValidateNested } from 'class-validator';
import { ConfirmationPolicyDto } from './confirmation-policy.dto.js';

export class SetConfirmationPolicyDto {
  @ApiProperty({ type: ConfirmationPolicyDto })
  @IsDefined()
  @ValidateNested()
  @Type(() => ConfirmationPolicyDto)
  policy: ConfirmationPolicyDto;
}
