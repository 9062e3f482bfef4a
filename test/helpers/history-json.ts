import { createRequire } from 'node:module';
import { temporal } from '@temporalio/proto';

export type History = temporal.api.history.v1.IHistory;

/*
 * The SDK's historyToJSON/historyFromJSON (@temporalio/common/lib/proto-utils) fail here with
 * "type must be a Type": @temporalio/common and @temporalio/proto each get their own nested copy
 * of protobufjs 8 (the top-level copy is grpc's protobufjs 7), and the JSON codec of one copy does
 * not recognise the message types of the other. These do the same conversion with the copy that
 * @temporalio/proto itself uses, producing the standard history JSON of `temporal workflow show
 * --output json` and the Web UI's download.
 */

interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): History | null;
}

const protoRequire = createRequire(require.resolve('@temporalio/proto'));
const protojson = protoRequire('protobufjs/ext/protojson') as ProtoJson;
// The package's root: the reflection namespace its static message classes were generated from.
const root = protoRequire('./root') as { lookupType(name: string): unknown };
const historyType = root.lookupType('temporal.api.history.v1.History');

/** A fetched history as standard history JSON text. */
export function historyToJson(history: History): string {
  const message = temporal.api.history.v1.History.fromObject(history);
  return JSON.stringify(protojson.toJson(historyType, message), null, 2);
}

/** Standard history JSON (parsed) back into a History, as Worker.runReplayHistory takes it. */
export function historyFromJson(json: unknown): History {
  const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (history === null) throw new TypeError('not a workflow history');
  return history;
}
