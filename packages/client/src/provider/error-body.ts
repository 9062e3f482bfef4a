/**
 * Pulls the provider's own message out of a non-2xx body. The service answers
 * {"status":"error","message":"..."} or {"error":"..."}; a gateway in front of it may answer
 * HTML or nothing at all.
 */
const MAX_MESSAGE_LENGTH = 300;
/** How much of a body that is not JSON is looked at for a message. */
export const MAX_EXAMINED_LENGTH = 16 * 1024;

export function extractErrorMessage(body: string): string | undefined {
  const text = body.trim();
  if (text.length === 0) return undefined;
  try {
    return fromJson(JSON.parse(text));
  } catch {
    return fromHtmlOrText(text);
  }
}

function fromJson(value: unknown): string | undefined {
  if (typeof value === 'string') return clip(value);
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  for (const key of ['message', 'error', 'detail', 'error_description']) {
    const field = record[key];
    if (typeof field === 'string' && field.length > 0) return clip(field);
    if (field !== null && typeof field === 'object') {
      const nested = fromJson(field);
      if (nested) return nested;
    }
  }
  return undefined;
}

function fromHtmlOrText(text: string): string | undefined {
  // A gateway's page names its error in its first lines; the rest is never read, so the work done
  // on a body does not grow with what a misbehaving server sends.
  const head = text.slice(0, MAX_EXAMINED_LENGTH);
  const plain = (titleOf(head) ?? withoutTags(head)).replace(/\s+/g, ' ').trim();
  return plain.length > 0 ? clip(plain) : undefined;
}

/**
 * The text of the first `<title …>text</title>`. Scans forward with indexOf only, never returning
 * to a position already passed, so the time is linear in the length (a regular expression with
 * two open-ended repetitions backtracks quadratically on a body of many "<").
 */
function titleOf(html: string): string | undefined {
  // ASCII only, so every index into `lower` is the same index into `html`.
  const lower = html.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
  let from = 0;
  for (;;) {
    const start = lower.indexOf('<title', from);
    if (start < 0) return undefined;
    const open = lower.indexOf('>', start + '<title'.length);
    if (open < 0) return undefined;
    const close = lower.indexOf('<', open + 1);
    if (close < 0) return undefined;
    if (lower.startsWith('</title>', close)) return html.slice(open + 1, close);
    // No "<title" starts before `close`: the "<" there is the first after the tag that failed.
    from = close;
  }
}

/** Each tag (a "<", at least one character, then ">") replaced by a space, in one forward pass. */
function withoutTags(html: string): string {
  let out = '';
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open < 0) break;
    const close = html.indexOf('>', open + 2);
    // With no ">" after this "<", none follows any later "<" either: the rest is text.
    if (close < 0) break;
    if (html[open + 1] === '>') {
      out += html.slice(at, open + 2);
      at = open + 2;
      continue;
    }
    out += `${html.slice(at, open)} `;
    at = close + 1;
  }
  return out + html.slice(at);
}

function clip(message: string): string {
  return message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH)}…` : message;
}
