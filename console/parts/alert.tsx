import type { ComponentChildren } from 'preact';

/** A message that screen readers announce when it appears. */
export function Alert({
  children,
  kind = 'error',
}: {
  children: ComponentChildren;
  kind?: 'error' | 'info';
}) {
  if (children === undefined || children === null || children === '') return null;
  return (
    <p class={`alert ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}
