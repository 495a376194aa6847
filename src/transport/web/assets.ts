/** The control plane's only script: the copy button (progressive: without JS the secret is still selectable). */
export const APP_JS = `document.addEventListener('click', (e) => {
  const b = e.target.closest && e.target.closest('[data-copy]');
  if (!b) return;
  const el = document.querySelector(b.dataset.copy);
  if (!el) return;
  navigator.clipboard.writeText(el.textContent.trim()).then(() => { b.textContent = 'Copied'; }, () => {
    const r = document.createRange(); r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r); b.textContent = 'Press Ctrl+C';
  });
});
`;
