import { BooleanField, ConstantField, StringArrayField, StringField } from './dto-field.decorators.js';
import type { DtoUnion } from './dto-field.registry.js';

/** Content items of LLM messages and tool results, and the model's thinking blocks. */

export class TextContent {
  @ConstantField('text', { required: false })
  type: 'text';

  @StringField({ required: true })
  text: string;

  @BooleanField({ default: false, description: 'Ask the provider to cache the prompt up to this item' })
  cache_prompt: boolean;
}

export class ImageContent {
  @ConstantField('image', { required: false })
  type: 'image';

  @StringArrayField({ required: true, description: 'Image URLs or data URLs' })
  image_urls: string[];

  @BooleanField({ default: false, description: 'Ask the provider to cache the prompt up to this item' })
  cache_prompt: boolean;
}

export type ContentItem = TextContent | ImageContent;

// An item without `type` is text, as in the reference; an unknown `type` then fails TextContent's constant.
export const CONTENT_ITEM_UNION: DtoUnion = {
  name: 'content item',
  discriminator: 'type',
  members: { text: TextContent, image: ImageContent },
  fallback: TextContent,
  memberWhenAbsent: 'text',
};

export class ThinkingBlock {
  @ConstantField('thinking', { required: false })
  type: 'thinking';

  @StringField({ required: true })
  thinking: string;

  @StringField({ nullable: true, description: 'Provider signature of the thinking block' })
  signature: string | null;
}

export class RedactedThinkingBlock {
  @ConstantField('redacted_thinking', { required: false })
  type: 'redacted_thinking';

  @StringField({ required: true, description: 'Opaque thinking data the provider withheld' })
  data: string;
}

export type ThinkingBlockItem = ThinkingBlock | RedactedThinkingBlock;

export const THINKING_BLOCK_UNION: DtoUnion = {
  name: 'thinking block',
  discriminator: 'type',
  members: { thinking: ThinkingBlock, redacted_thinking: RedactedThinkingBlock },
  fallback: ThinkingBlock,
  memberWhenAbsent: 'thinking',
};
