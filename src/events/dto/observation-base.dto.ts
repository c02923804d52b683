import { CONTENT_ITEM_UNION, type ContentItem } from './content.dto.js';
import { BooleanField, UnionField } from './dto-field.decorators.js';

/** Fields every Observation variant starts with. */
export abstract class ObservationBase {
  @UnionField(CONTENT_ITEM_UNION, {
    isArray: true,
    default: [],
    description: 'What the tool returned, as text and images; error text when is_error',
  })
  content: ContentItem[];

  @BooleanField({ default: false })
  is_error: boolean;
}
