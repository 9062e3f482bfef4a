import { InvalidArgumentError, type Command } from 'commander';
import { AesGcmPayloadCodec } from '@avatar-pipeline/client/codec/aes-gcm-codec';
import { startCodecServer } from '../../codec/codec-server';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { loadConfig } from '../../config/load-config';
import { loadOperationsConfig } from '../../config/operations-config';
import { reportError } from '../fail';
import { serveUntilSignal } from '../serve-until-signal';

interface CodecServerFlags {
  port?: number;
  host?: string;
}

export function registerCodecServerCommand(program: Command): void {
  program
    .command('codec-server')
    .description(
      'Serve the Temporal codec server protocol (POST /encode, /decode) so the Temporal UI and CLI can show encrypted payloads to token holders',
    )
    .option('--port <port>', 'port to listen on (default CODEC_SERVER_PORT, 8888)', parsePort)
    .option('--host <host>', 'interface to bind (default CODEC_SERVER_HOST, 127.0.0.1)')
    .addHelpText(
      'after',
      [
        '',
        'Needs ENCRYPTION_KEYS (and ENCRYPTION_KEY_ID with several keys) and CODEC_SERVER_TOKENS (each at least 16 characters).',
        'CODEC_CORS_ORIGINS lists the browser origins allowed to call it (the Temporal UI, e.g. http://localhost:8080).',
        'Callers send `Authorization: Bearer <token>`; a browser can instead sign in once at /login.',
        'Temporal UI: TEMPORAL_CODEC_ENDPOINT=<this URL>, TEMPORAL_CODEC_INCLUDE_CREDENTIALS=true.',
        'CLI: temporal workflow show --codec-endpoint <this URL> --codec-auth "Bearer <token>" …',
      ].join('\n'),
    )
    .action(async (flags: CodecServerFlags) => {
      try {
        const { temporal } = loadConfig();
        const { codecServer } = loadOperationsConfig();
        const problems: { variable: string; reason: string }[] = [];
        if (!temporal.encryption) {
          problems.push({
            variable: 'ENCRYPTION_KEYS',
            reason: 'must be set: the codec server encrypts with them',
          });
        }
        if (codecServer.tokens.length === 0) {
          problems.push({
            variable: 'CODEC_SERVER_TOKENS',
            reason: 'must name at least one token: the codec server does not run open',
          });
        }
        if (problems.length > 0 || !temporal.encryption) throw new ConfigError(problems);
        const codec = new AesGcmPayloadCodec(temporal.encryption);
        const server = await startCodecServer({
          codec,
          tokens: codecServer.tokens,
          corsOrigins: codecServer.corsOrigins,
          host: flags.host ?? codecServer.host,
          port: flags.port ?? codecServer.port,
          log: (line) => process.stderr.write(`codec-server: ${line}\n`),
        });
        process.stdout.write(`${server.url}\n`);
        process.stderr.write(
          `codec server at ${server.url} (keys ${codec.keyIds.join(', ')}; encrypting with ${codec.currentKeyId}; CORS: ${codecServer.corsOrigins.join(', ') || 'none'})\n`,
        );
        await serveUntilSignal('codec-server', () => server.stop());
      } catch (err) {
        reportError(err);
      }
    });
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidArgumentError('must be a port number from 0 to 65535');
  }
  return port;
}
