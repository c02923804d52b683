import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';

// The reference's request and response bodies of ask_agent, generate_title, secrets and security_analyzer.

export class AskAgentDto {
  @ApiProperty({ description: 'The question to ask the agent', example: 'What have you changed so far?' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100_000)
  question: string;
}

export class AskAgentResponseDto {
  @ApiProperty({ description: "The agent's response to the question" })
  response: string;
}

export class GenerateTitleDto {
  @ApiPropertyOptional({ description: 'Maximum length of the generated title', default: 50, minimum: 1, maximum: 200 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(200)
  max_length: number = 50;

  @ApiPropertyOptional({
    nullable: true,
    description: 'An LLM to use instead of the conversation\'s (model, api_key, base_url; other fields are ignored)',
    example: { model: 'openai/gpt-4o-mini' },
  })
  @IsOptional()
  @IsObject()
  llm?: Record<string, unknown> | null;
}

export class GenerateTitleResponseDto {
  @ApiProperty({ description: 'The generated title, now the conversation\'s title' })
  title: string;
}

export class UpdateSecretsDto {
  @ApiProperty({
    description: 'Secret names mapped to a StaticSecret ({kind, value, description?}), a LookupSecret ({kind, url, headers?, description?}) or a plain string',
    example: { GITHUB_TOKEN: { kind: 'StaticSecret', value: 'ghp_...' } },
  })
  @IsDefined()
  @IsObject()
  secrets: Record<string, unknown>;
}

export class SetSecurityAnalyzerDto {
  @ApiProperty({
    nullable: true,
    description: '{"kind": "LLMSecurityAnalyzer"}, a GraySwanAnalyzer, or null for none',
    example: { kind: 'LLMSecurityAnalyzer' },
  })
  // Required, but null is a value: checked when not null, and present-or-missing otherwise.
  @ValidateIf((dto: SetSecurityAnalyzerDto) => dto.security_analyzer !== null)
  @IsDefined()
  @IsObject()
  security_analyzer: Record<string, unknown> | null;
}
