import { IntersectionType, OmitType } from '@nestjs/swagger';
import { ReferenceEventSearchQueryDto } from './reference-search-query.dto.js';
import { SearchEventsQueryDto } from './search-events-query.dto.js';

/** Count takes the filters of either search route as query parameters. */
export class CountEventsQueryDto extends IntersectionType(
  OmitType(SearchEventsQueryDto, ['start_id', 'end_id', 'reverse', 'limit'] as const),
  OmitType(ReferenceEventSearchQueryDto, ['page_id', 'limit', 'sort_order'] as const),
) {}
