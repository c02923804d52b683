import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsString, Length } from 'class-validator';

export class UpdateConversationDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Fix the flaky test' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsDefined()
  @IsString()
  @Length(1, 200, { message: 'title must be 1 to 200 characters, not only whitespace' })
  title: string;
}
