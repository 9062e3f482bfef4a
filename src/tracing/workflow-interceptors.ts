/**
 * The sandbox side of tracing: bundled into the workflow code when tracing is on. A module of its
 * own so the worker can name it without loading OpenTelemetry when tracing is off.
 */
export const TRACING_WORKFLOW_INTERCEPTORS =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');
