import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';

export const CONFIRMATION_POLICY_KINDS = ['NeverConfirm', 'AlwaysConfirm', 'ConfirmRisky'] as const;
const RISK_THRESHOLDS = ['LOW', 'MEDIUM', 'HIGH'] as const;

export class ConfirmationPolicyDto {
  @ApiProperty({ enum: CONFIRMATION_POLICY_KINDS, example: 'NeverConfirm' })
  @IsIn(CONFIRMATION_POLICY_KINDS, { message: `kind must be one of: ${CONFIRMATION_POLICY_KINDS.join(', ')}` })
  kind: (typeof CONFIRMATION_POLICY_KINDS)[number];

  @ApiPropertyOptional({ enum: RISK_THRESHOLDS, default: 'HIGH', description: 'ConfirmRisky: the lowest risk that asks' })
  @IsOptional()
  @IsIn(RISK_THRESHOLDS, { message: `threshold must be one of: ${RISK_THRESHOLDS.join(', ')}` })
  threshold?: (typeof RISK_THRESHOLDS)[number];

  @ApiPropertyOptional({ default: true, description: 'ConfirmRisky: ask when the risk is UNKNOWN' })
  @IsOptional()
  @IsBoolean()
  confirm_unknown?: boolean;
}
