import type { SearchAttributeType } from '@temporalio/common';
import { PIPELINE_SEARCH_ATTRIBUTES } from '@avatar-pipeline/client/contracts/search-attributes';

/** Search attribute type names as the dev server's `--search-attribute name=Type` takes them. */
export const SEARCH_ATTRIBUTE_TYPES = [
  'Keyword',
  'Text',
  'Int',
  'Double',
  'Bool',
  'Datetime',
  'KeywordList',
] as const;
export type SearchAttributeTypeName = (typeof SEARCH_ATTRIBUTE_TYPES)[number];
export type SearchAttributeDefinitions = Readonly<Record<string, SearchAttributeTypeName>>;

const TYPE_NAMES: Record<SearchAttributeType, SearchAttributeTypeName> = {
  TEXT: 'Text',
  KEYWORD: 'Keyword',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

/** `{ name: 'Keyword' | 'Int' | … }` for search attribute keys, as the dev server and setup take them. */
function searchAttributeDefinitions(
  keys: readonly { name: string; type: SearchAttributeType }[],
): SearchAttributeDefinitions {
  return Object.fromEntries(keys.map((key) => [key.name, TYPE_NAMES[key.type]]));
}

/** The package's own search attributes: every dev server it starts has them, and `setup` adds them elsewhere. */
export const PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS = searchAttributeDefinitions(PIPELINE_SEARCH_ATTRIBUTES);
