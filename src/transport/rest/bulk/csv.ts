/**
 * RFC 4180 CSV, read record by record with the line each starts on (so an error names the line an editor
 * shows). Cells are separated by ",", records by CRLF or LF; a quoted cell may hold commas, quotes (doubled)
 * and line breaks. Lenient where the RFC is strict and the meaning is plain (a quote inside an unquoted cell
 * is kept as text); a record whose quoting is broken is answered as that record's problem, never guessed at.
 * A blank line (nothing but spaces or tabs) is no record. A CRLF inside a quoted cell is a line break, read as
 * "\n" (the one line break report texts take), whichever line ending the file was written with.
 */
export type CsvRecord = { line: number; cells: string[]; problem?: undefined } | { line: number; problem: string };

const newlinesIn = (text: string, from: number, to: number) => {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  while (i < n) {
    const start = line;
    const cells: string[] = [];
    let problem = '';
    for (;;) {
      let cell = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          const q = text.indexOf('"', i);
          if (q < 0) {
            problem = 'has a quoted cell that is never closed';
            line += newlinesIn(text, i, n);
            i = n;
            break;
          }
          cell += text.slice(i, q).replaceAll('\r\n', '\n');
          line += newlinesIn(text, i, q);
          if (text[q + 1] === '"') {
            cell += '"';
            i = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        if (!problem && i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          problem = 'has text after the closing quote of a cell (write a quote inside a quoted cell as "")';
          const end = text.indexOf('\n', i);
          i = end < 0 ? n : end;
        }
      } else {
        let j = i;
        while (j < n && text[j] !== ',' && text[j] !== '\n') j++;
        cell = text.slice(i, j);
        if (j < n && text[j] === '\n' && cell.endsWith('\r')) cell = cell.slice(0, -1);
        i = j;
      }
      cells.push(cell);
      if (!problem && text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r' && text[i + 1] === '\n') i++;
      if (text[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    if (problem) records.push({ line: start, problem });
    else if (!(cells.length === 1 && cells[0]!.trim() === '')) records.push({ line: start, cells });
  }
  return records;
}
