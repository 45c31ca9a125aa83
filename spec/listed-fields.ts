// The fields the contract lists for each request object (2.1-2.5, 2.8), read from the JSON Schemas, the one place
// they are written down. Any other field is not read by a server (2.1). A property a schema marks response-only
// (annotations and service_web_search on a message, 2.9) is not a request field.
import { readFileSync } from 'node:fs';
import { SCHEMA_DIR, type SchemaName } from './validator.ts';

type Node = { properties?: Record<string, { $ref?: string; properties?: unknown }> };

function listed(name: SchemaName, nested?: string): ReadonlySet<string> {
  const schema = JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMA_DIR), 'utf8')) as Node;
  const node = (nested ? schema.properties?.[nested] : schema) as Node | undefined;
  return new Set(Object.entries(node?.properties ?? {}).filter(([, p]) => p.$ref !== '#/$defs/response-only').map(([k]) => k));
}

export const LISTED_FIELDS = {
  /** 2.1: the request object */
  request: listed('chat-request'),
  /** 2.2: a message of the request */
  message: listed('message'),
  /** 2.3: a tool, and its function object */
  tool: listed('tool'),
  function: listed('tool', 'function'),
  /** 2.5: a content part */
  contentPart: listed('content-part'),
  /** 2.8: the routing preferences */
  provider: listed('provider'),
} as const;
