import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

export interface AuthenticatedRequest {
  userId?: string;
}

/** The id of the user whose session key authenticated the request. */
export const CurrentUser = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  return request.userId as string;
});
