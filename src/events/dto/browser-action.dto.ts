import {
  BooleanField,
  ConstantField,
  EnumField,
  FreeFormObjectField,
  IntegerField,
  StringField,
} from './dto-field.decorators.js';
import { SCROLL_DIRECTIONS, type ScrollDirection } from './event-enums.js';

/** Actions of the browser tools. Tab ids are the 4-character ids that browser_list_tabs reports. */

const TAB_ID = { required: true, minLength: 4, maxLength: 4, description: '4-character tab id' } as const;

export class BrowserAction {
  @ConstantField('BrowserAction')
  kind: 'BrowserAction';
}

export class BrowserClickAction {
  @IntegerField({ required: true, minimum: 0, description: 'Index of the element to click' })
  index: number;

  @BooleanField({ default: false, description: 'Open the link in a new tab' })
  new_tab: boolean;

  @ConstantField('BrowserClickAction')
  kind: 'BrowserClickAction';
}

export class BrowserCloseTabAction {
  @StringField(TAB_ID)
  tab_id: string;

  @ConstantField('BrowserCloseTabAction')
  kind: 'BrowserCloseTabAction';
}

export class BrowserGetContentAction {
  @BooleanField({ default: false, description: 'Include the links of the page' })
  extract_links: boolean;

  @IntegerField({ default: 0, minimum: 0, description: 'Character offset to start from' })
  start_from_char: number;

  @ConstantField('BrowserGetContentAction')
  kind: 'BrowserGetContentAction';
}

export class BrowserGetStateAction {
  @BooleanField({ default: false })
  include_screenshot: boolean;

  @ConstantField('BrowserGetStateAction')
  kind: 'BrowserGetStateAction';
}

export class BrowserGetStorageAction {
  @ConstantField('BrowserGetStorageAction')
  kind: 'BrowserGetStorageAction';
}

export class BrowserGoBackAction {
  @ConstantField('BrowserGoBackAction')
  kind: 'BrowserGoBackAction';
}

export class BrowserListTabsAction {
  @ConstantField('BrowserListTabsAction')
  kind: 'BrowserListTabsAction';
}

export class BrowserNavigateAction {
  @StringField({ required: true })
  url: string;

  @BooleanField({ default: false, description: 'Open the URL in a new tab' })
  new_tab: boolean;

  @ConstantField('BrowserNavigateAction')
  kind: 'BrowserNavigateAction';
}

export class BrowserScrollAction {
  @EnumField(SCROLL_DIRECTIONS, { default: 'down' })
  direction: ScrollDirection;

  @ConstantField('BrowserScrollAction')
  kind: 'BrowserScrollAction';
}

export class BrowserSetStorageAction {
  @FreeFormObjectField({ required: true, description: 'Storage state with cookies and origins' })
  storage_state: Record<string, unknown>;

  @ConstantField('BrowserSetStorageAction')
  kind: 'BrowserSetStorageAction';
}

export class BrowserStartRecordingAction {
  @ConstantField('BrowserStartRecordingAction')
  kind: 'BrowserStartRecordingAction';
}

export class BrowserStopRecordingAction {
  @ConstantField('BrowserStopRecordingAction')
  kind: 'BrowserStopRecordingAction';
}

export class BrowserSwitchTabAction {
  @StringField(TAB_ID)
  tab_id: string;

  @ConstantField('BrowserSwitchTabAction')
  kind: 'BrowserSwitchTabAction';
}

export class BrowserTypeAction {
  @IntegerField({ required: true, minimum: 0, description: 'Index of the input element' })
  index: number;

  @StringField({ required: true })
  text: string;

  @ConstantField('BrowserTypeAction')
  kind: 'BrowserTypeAction';
}
