import { useEffect, useState } from 'preact/hooks';
import { Alert } from './alert';

/** A link to hand on: read-only, selected on focus, with "Copy" and a line saying what it grants. */
export function CopyableLink({
  id,
  label,
  url,
  children,
}: {
  id: string;
  label: string;
  url: string;
  /** What the link grants and until when (the input's description). */
  children: preact.ComponentChildren;
}) {
  const [copied, setCopied] = useState('');
  useEffect(() => setCopied(''), [url]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied('Copied.');
    } catch {
      setCopied('Copying was refused by the browser: select the link and copy it.');
    }
  };
  return (
    <div class="share">
      <label for={id}>{label}</label>
      <div class="copyable">
        <input
          id={id}
          readOnly
          value={url}
          aria-describedby={`${id}-expiry`}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" class="quiet" onClick={copy}>
          Copy
        </button>
      </div>
      <p class="hint" id={`${id}-expiry`}>
        {children}
      </p>
      <Alert kind="info">{copied}</Alert>
    </div>
  );
}
