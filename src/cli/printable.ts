/**
 * Text from workflow memos and ids, made safe to print: control characters (escape sequences
 * included) and other invisible or line-breaking characters are shown as \u{…} escapes, so
 * nothing stored in Temporal can move the cursor, recolour or rewrite the terminal.
 */
export function printable(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`);
}
