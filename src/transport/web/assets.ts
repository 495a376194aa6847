/**
 * The control plane's only script, progressive (every page works without it): the copy button (without JS the
 * secret is still selectable), and each table cell labelled with its column's name, which a phone's stacked rows
 * show above the cell (html.ts).
 */
export const APP_JS = `for (const table of document.querySelectorAll('main table')) {
  const names = [...table.querySelectorAll(':scope > thead th')].map((th) => th.textContent.trim());
  if (!names.length) continue;
  for (const row of table.querySelectorAll(':scope > tbody > tr'))
    [...row.children].forEach((cell, i) => { if (names[i]) cell.dataset.label = names[i]; });
}
document.addEventListener('click', (e) => {
  const b = e.target.closest && e.target.closest('[data-copy]');
  if (!b) return;
  const el = document.querySelector(b.dataset.copy);
  if (!el) return;
  navigator.clipboard.writeText(el.textContent.trim()).then(() => { b.textContent = 'Copied'; }, () => {
    const r = document.createRange(); r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r); b.textContent = 'Press Ctrl+C';
  });
});
`;
