/** Campaign manifests: CSV or JSONL, one subject per row, validated as a whole before anything starts. */
export { csvLine, neutralizeFormula } from './csv';
export { readCsv, type CsvRecord } from './csv-reader';
export { ManifestError, describeIssue, type ManifestIssue } from './manifest-issue';
export { detectManifestFormat, type ManifestFormat } from './read-rows';
export { MANIFEST_FIELDS, manifestRowSchema, type ManifestRow } from './row-schema';
export {
  loadManifestFile,
  readManifest,
  validateManifestRead,
  type ManifestRead,
  MAX_MANIFEST_BYTES,
  MAX_MANIFEST_ROWS,
  validateManifestObjects,
  validateManifestText,
  type ManifestValidation,
  type ManifestValidationOptions,
  type ModelCheck,
  type ModelProblem,
} from './validate-manifest';
