import { useRef } from 'preact/hooks';

/**
 * A button for what cannot be undone (cancelling a run or a campaign): it asks first, in a modal
 * dialog that names what happens, and acts only on the dialog's own button. Escape or "Keep" closes
 * it and does nothing.
 */
export function ConfirmButton({
  label,
  question,
  explanation,
  confirm,
  onConfirm,
  disabled,
}: {
  /** The button's name, e.g. "Cancel run". */
  label: string;
  /** The dialog's heading, e.g. "Cancel this run?". */
  question: string;
  explanation: string;
  /** The dialog's acting button, e.g. "Yes, cancel the run". */
  confirm: string;
  onConfirm: () => void | Promise<void>;
  disabled?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = label.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return (
    <>
      <button type="button" onClick={() => dialog.current?.showModal()} disabled={disabled}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-question`} aria-describedby={`${id}-explanation`}>
        <h2 id={`${id}-question`}>{question}</h2>
        <p id={`${id}-explanation`}>{explanation}</p>
        <div class="actions">
          <button
            type="button"
            class="danger"
            onClick={() => {
              dialog.current?.close();
              void onConfirm();
            }}
          >
            {confirm}
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Keep
          </button>
        </div>
      </dialog>
    </>
  );
}
