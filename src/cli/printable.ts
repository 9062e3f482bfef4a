/*
 * Everything the command line prints that comes from the provider, from workflow memos, ids or
 * results passes through here, so nothing stored elsewhere can move the cursor, recolour, clear or
 * rewrite the terminal (a style name carrying `ESC [2J` cleared the screen).
 */

/** Control (C0, DEL, C1), format (bidi overrides, zero-width) and line or paragraph separator characters. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * Text made safe to print on one line: the characters above are shown as \u{…} escapes. ESC is
 * one of them, so an escape sequence is left as harmless text.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`);
}

/** Lines for people: each line made printable, the line breaks between them kept. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/** Writes `text` for people (see printableLines), ending the line. */
export function writeLines(stream: NodeJS.WritableStream, text: string): void {
  stream.write(`${printableLines(text)}\n`);
}

/**
 * A value as a JSON document for `--json` (indented by `indent`, 0 for one line; ending the line). JSON
 * escapes C0 controls itself but leaves DEL, C1 (U+009B is a one-character CSI), separators and
 * format characters raw, so those are written as \uXXXX escapes too: the same value for a parser,
 * nothing active for a terminal showing it.
 */
export function printableJson(value: unknown, indent = 2): string {
  const json = JSON.stringify(value, null, indent) ?? 'null';
  // Inside strings JSON has escaped every C0 control already, so a raw newline is the indentation's,
  // and every other match lies inside a string.
  const escaped = json.replace(UNPRINTABLE, (ch) => (ch === '\n' ? ch : jsonEscapes(ch)));
  return `${escaped}\n`;
}

/** `\uXXXX` for each UTF-16 unit of `ch` (two for a character beyond U+FFFF). */
function jsonEscapes(ch: string): string {
  let out = '';
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}
