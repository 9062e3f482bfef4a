import { isGrpcServiceError, type Connection } from '@temporalio/client';
import {
  encodeSearchAttributeIndexedValueType,
  type SearchAttributeType,
} from '@temporalio/common/lib/search-attributes';
import { msToTs, type Duration } from '@temporalio/common/lib/time';
import type { SearchAttributeDefinitions, SearchAttributeTypeName } from './search-attribute-definitions';

const GRPC_NOT_FOUND = 5;

type IndexedValueType = NonNullable<ReturnType<typeof encodeSearchAttributeIndexedValueType>>;

const ENCODED_TYPE_NAMES: Record<SearchAttributeTypeName, SearchAttributeType> = {
  Keyword: 'KEYWORD',
  Text: 'TEXT',
  Int: 'INT',
  Double: 'DOUBLE',
  Bool: 'BOOL',
  Datetime: 'DATETIME',
  KeywordList: 'KEYWORD_LIST',
};

/**
 * Gives a server we did not start what ours would have had from its command line: the
 * namespace and the custom search attributes. Existing ones are left alone.
 */
export async function prepareNamespace(
  connection: Connection,
  namespace: string,
  searchAttributes: SearchAttributeDefinitions,
  log: (message: string) => void,
  options: { retention?: Duration } = {},
): Promise<void> {
  if (!(await namespaceExists(connection, namespace))) {
    log(`registering namespace ${namespace}`);
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(options.retention ?? '1 day'),
    });
  }
  const { customAttributes } = await untilNamespaceKnown(() =>
    connection.operatorService.listSearchAttributes({ namespace }),
  );
  const missing = Object.entries(searchAttributes).filter(
    ([name]) => !(customAttributes && name in customAttributes),
  );
  if (missing.length === 0) return;
  log(`registering search attributes ${missing.map(([name, type]) => `${name}=${type}`).join(', ')}`);
  await addSearchAttributes(connection, namespace, Object.fromEntries(missing));
}

/** Adds search attributes as they are (no listing first: the time-skipping test server cannot list them). */
export async function addSearchAttributes(
  connection: Connection,
  namespace: string,
  searchAttributes: SearchAttributeDefinitions,
): Promise<void> {
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      Object.entries(searchAttributes).map(([name, type]) => [name, encodeIndexedValueType(type)]),
    ),
  });
}

function encodeIndexedValueType(type: SearchAttributeTypeName): IndexedValueType {
  const encoded = encodeSearchAttributeIndexedValueType(ENCODED_TYPE_NAMES[type]);
  if (encoded === undefined) throw new Error(`Unknown search attribute type ${type}`);
  return encoded;
}

/**
 * A new namespace reaches the server's namespace cache a few seconds after registration;
 * until then, calls that go through the cache answer NOT_FOUND.
 */
async function untilNamespaceKnown<T>(call: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (!isNotFound(err) || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

function isNotFound(err: unknown): boolean {
  return isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND;
}

async function namespaceExists(connection: Connection, namespace: string): Promise<boolean> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
