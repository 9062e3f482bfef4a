/**
 * Pulls the provider's own message out of a non-2xx body. The service answers
 * {"status":"error","message":"..."} or {"error":"..."}; a gateway in front of it may answer
 * HTML or nothing at all.
 */
const MAX_MESSAGE_LENGTH = 300;

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
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const plain = (title ?? text.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();
  return plain.length > 0 ? clip(plain) : undefined;
}

function clip(message: string): string {
  return message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH)}…` : message;
}
