import { goInstaller } from './go-installer';
import { locateTool, type LocateToolOptions, type ToolSpec } from './locate-tool';
import { S3_TEST_SERVER_GO_PACKAGE, S3_TEST_SERVER_GO_VERSION } from './versions';

export const S3_TEST_SERVER: ToolSpec = {
  displayName: 'S3-compatible test server (versitygw)',
  envVar: 'S3_TEST_SERVER',
  installers: [goInstaller(S3_TEST_SERVER_GO_PACKAGE, S3_TEST_SERVER_GO_VERSION)],
};

/** Path of `versitygw`: $S3_TEST_SERVER, `.tools/`, else built into `.tools/` (minutes, once per version). */
export async function findS3TestServer(options: LocateToolOptions = {}): Promise<string> {
  return (await locateTool(S3_TEST_SERVER, options)).path;
}
