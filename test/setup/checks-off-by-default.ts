/**
 * Most tests run pipelines on drawn selfies, which are not faces to a face detector: they run with
 * the quality checks off, whatever the default, and so do the processes they start through
 * test/helpers/run-cli.ts's cliEnv. The tests of the checks switch them on themselves
 * (SELFIE_CHECKS=true, AVATAR_CHECKS=true) with real photographs.
 */
process.env.SELFIE_CHECKS ??= 'false';
process.env.AVATAR_CHECKS ??= 'false';
