/**
 * A workflow interceptor for tests that force an order: every child start waits, before its
 * command goes out, until the run receives the `test:releaseChildStarts` signal. A test can then
 * act while a start is pending (a campaign cancelled with a subject's start in flight) and let
 * the start go on afterwards.
 */
import { condition, defineSignal, setHandler, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const releaseChildStartsSignal = defineSignal('test:releaseChildStarts');

export const interceptors: WorkflowInterceptorsFactory = () => {
  let released = false;
  let listening = false;
  return {
    outbound: [
      {
        async startChildWorkflowExecution(input, next) {
          if (!listening) {
            listening = true;
            setHandler(releaseChildStartsSignal, () => void (released = true));
          }
          await condition(() => released);
          return next(input);
        },
      },
    ],
  };
};
