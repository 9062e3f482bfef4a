import type { Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerInterceptors, WorkerOptions } from '@temporalio/worker';
import type { OperationsConfig } from '../config/operations-config';

/**
 * OpenTelemetry tracing through the SDK's interceptors: a client's start becomes the parent of
 * the workflow run, which is the parent of its activities and child workflows, so one trace
 * covers a pipeline from the API request to the last provider call. Spans go over OTLP/HTTP to
 * OTEL_EXPORTER_OTLP_ENDPOINT (a collector, Jaeger, Tempo, …). Interceptors only add headers, so
 * workflows replay the same with tracing on or off.
 */
export class PipelineTracing {
  private constructor(
    private readonly provider: BasicTracerProvider,
    private readonly processor: BatchSpanProcessor,
    private readonly resource: Resource,
    private readonly tracer: Tracer,
  ) {}

  /** Undefined when OTEL_EXPORTER_OTLP_ENDPOINT is not set: tracing is optional. */
  static start(tracing: OperationsConfig['tracing']): PipelineTracing | undefined {
    if (!tracing.endpoint) return undefined;
    const resource = new Resource({ 'service.name': tracing.serviceName });
    const processor = new BatchSpanProcessor(
      new OTLPTraceExporter({ url: `${tracing.endpoint}/v1/traces` }),
      { scheduledDelayMillis: 1_000 },
    );
    const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
    // The W3C trace-context propagator carries the trace through Temporal headers; the interceptors
    // make their spans current with context.with(), which needs a real context manager.
    provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
    return new PipelineTracing(provider, processor, resource, provider.getTracer('avatar-pipeline'));
  }

  clientInterceptors(): WorkflowClientInterceptor[] {
    return [new OpenTelemetryWorkflowClientInterceptor({ tracer: this.tracer })];
  }

  /** Activity spans and the client calls workflows make from activities; pair with workerSinks(). */
  workerInterceptors(): WorkerInterceptors {
    return {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: this.tracer }),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    };
  }

  /** Workflow spans are made in the sandbox and exported by the worker through this sink. */
  workerSinks(): NonNullable<WorkerOptions['sinks']> {
    return { exporter: makeWorkflowExporter(this.processor, this.resource) };
  }

  /** Sends what is buffered; call before the process exits. */
  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}
