import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

/** The page's h1 (focusable, so the console can move the focus to it) and the document title. */
export function PageHeading({ children, title }: { children: ComponentChildren; title: string }) {
  useEffect(() => {
    document.title = `${title} · Avatar console`;
  }, [title]);
  return (
    <h1 tabIndex={-1} class="page-title">
      {children}
    </h1>
  );
}
