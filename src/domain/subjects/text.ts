/**
 * Text hygiene shared by subject keys and free-text fields. Stored text is shown in
 * dashboards, exported to feeds and logged; control characters and lone surrogates would
 * corrupt all three (terminal escapes, broken UTF-8), so they are refused at the edge.
 */

// C0 controls, DEL and C1 controls; the second form lets tab (\t) and line feed (\n) through.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

function describeChar(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Why `value` is not acceptable text, or '' when it is.
 * `multiline` allows \n and \t (free-text bodies); everything else forbids every control character.
 */
export function textProblem(value: string, multiline = false): string {
  if (!value.isWellFormed()) return 'must be well-formed Unicode (it contains a lone surrogate)';
  const found = (multiline ? CONTROL_EXCEPT_LINES : CONTROL).exec(value);
  if (found) {
    const extra = multiline && found[0] === '\r' ? '; use \\n alone for line breaks' : '';
    return `must not contain control characters (found ${describeChar(found[0])}${extra})`;
  }
  return '';
}

/** Length in Unicode code points: what a person counts, and what JSON Schema maxLength means. */
export function codePointLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}
