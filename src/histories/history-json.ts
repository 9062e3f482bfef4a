import { createRequire } from 'node:module';
import type { WorkflowHandle } from '@temporalio/client';

/** A workflow history as the client fetches it (temporal.api.history.v1.History). */
export type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/*
 * Workflow histories as the standard JSON of `temporal workflow show --output json` and the Web
 * UI's download: for replay tests (scripts/record-histories.ts) and for looking at a run offline.
 *
 * The SDK's historyToJSON/historyFromJSON (@temporalio/common/lib/proto-utils) fail here with
 * "type must be a Type": @temporalio/common and @temporalio/proto each get their own nested copy
 * of protobufjs 8 (the top-level copy is grpc's protobufjs 7), and the JSON codec of one copy does
 * not recognise the message types of the other. These do the same conversion with the copy that
 * @temporalio/proto (the client's) itself uses.
 */

interface MessageType {
  fromObject(object: unknown): unknown;
}

interface ProtoJson {
  toJson(type: MessageType, message: unknown): unknown;
  fromJson(type: MessageType, json: unknown, options?: { ignoreUnknownFields?: boolean }): History | null;
}

const clientRequire = createRequire(require.resolve('@temporalio/client'));
const protoRequire = createRequire(clientRequire.resolve('@temporalio/proto'));
const protojson = protoRequire('protobufjs/ext/protojson') as ProtoJson;
// The package's root: the reflection namespace its message classes were generated from.
const root = protoRequire('@temporalio/proto') as { lookupType(name: string): MessageType };
const historyType = root.lookupType('temporal.api.history.v1.History');

/** A fetched history as standard history JSON text. */
export function historyToJson(history: History): string {
  return JSON.stringify(protojson.toJson(historyType, historyType.fromObject(history)), null, 2);
}

/** Standard history JSON (parsed) back into a History, as Worker.runReplayHistory takes it. */
export function historyFromJson(json: unknown): History {
  const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (history === null) throw new TypeError('not a workflow history');
  return history;
}
