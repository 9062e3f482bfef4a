/** Splits a Temporal frontend address (`host:port`, as in TEMPORAL_ADDRESS). */
export function parseAddress(address: string): { host: string; port: number } {
  const match = /^(.+):(\d+)$/.exec(address);
  const port = Number(match?.[2]);
  if (!match?.[1] || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`Temporal address "${address}" is not host:port`);
  }
  return { host: match[1], port };
}
