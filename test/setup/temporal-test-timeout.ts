// Starting a worker (bundling workflow code) or a server takes seconds, not milliseconds. Set here
// because jest reads `testTimeout` only from the top-level config, not from a project's.
jest.setTimeout(60_000);
