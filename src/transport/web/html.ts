/** Server-rendered HTML: one escaping function, one layout. No client framework. */
const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESC[c]!);
}

/** A raw HTML fragment, built only by `html` (so every interpolation is escaped unless already Html). */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

function render(v: unknown): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return esc(v);
}

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

export function when(d: Date | null | undefined): string {
  return d ? `${d.toISOString().replace('T', ' ').slice(0, 19)} UTC` : '—';
}

export type Chrome = { email: string; csrf: string } | null;

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{background:#1b2a41;color:#fff;padding:.6rem 1.2rem;display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;align-items:center}
header a{color:#fff;text-decoration:none}header form{margin-left:auto;display:flex;align-items:center;gap:.5rem;min-width:0;max-width:100%}
header form span{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;min-width:0}header button{flex:none}
main{max-width:72rem;margin:1.5rem auto;padding:0 1.2rem}h1,h2,main p,main li{overflow-wrap:anywhere}.scroll,.chart{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #dde;padding:.4rem .6rem;text-align:left;overflow-wrap:break-word}
/* long URLs, ids and response excerpts wrap inside their cell, so a table never outgrows the page and its last column (the actions) stays on screen */
td code{word-break:break-all}td:has(>form),td:has(>a:only-child){white-space:nowrap;overflow-wrap:normal}
/* a phone: each row a card, each cell under its column's name (app.js copies the names into data-label) */
@media (max-width:40rem){main table,main thead,main tbody,main tr,main th,main td{display:block;width:auto}
main thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}main tr{border-bottom:2px solid #c9ced6;padding:.3rem 0}
main th,main td{border:0;padding:.15rem .6rem}main td[data-label]::before{content:attr(data-label);display:block;font-size:.8rem;color:#555}
.scroll{overflow-x:visible}td:has(>form),td:has(>a:only-child){white-space:normal}}
.notice{padding:.7rem 1rem;border-radius:6px;margin:1rem 0}.warn{background:#fff4d6;border:1px solid #e8c66a}.error{background:#fde2e1;border:1px solid #e59a96}
.ok{background:#e3f6e7;border:1px solid #8fcf9c}code.secret{font-size:1.05rem;background:#fff;padding:.3rem .5rem;border:1px solid #ccd;word-break:break-all}
label{display:block;margin:.6rem 0}.field-error{color:#a61b13;display:block;font-size:.9rem}td form{margin:0}input[type=text],input[type=email],input[type=password]{padding:.35rem;width:20rem;max-width:100%}button{padding:.35rem .8rem}
/* a chart wider than the screen opens scrolled to its right end: today */.chart{direction:rtl}#usage-chart{direction:ltr}
#usage-chart text,#model-chart text{font-size:12px;fill:#444}#usage-chart .grid,#model-chart .grid{stroke:#e3e6ea}#usage-chart .axis{stroke:#888}#usage-chart .hover{fill:transparent}
#usage-chart g.day:hover .hover{fill:#1b2a4114}.limit{stroke:#c33;stroke-dasharray:4 3;stroke-width:1.5}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3rem 1.2rem;font-size:.9rem}
.series-0{fill:#3465a4}.series-1{fill:#e8a33d}.series-2{fill:#4e9a06}.series-3{fill:#a040a0}.series-4{fill:#1b9e9e}.series-rest{fill:#9aa0a6}`;

/** `refreshSeconds`: the page reloads itself after that long (a result still being computed). */
export function page(title: string, chrome: Chrome, body: Html, opts: { refreshSeconds?: number } = {}): string {
  const nav = chrome
    ? html`<a href="/workspace/">Overview</a><a href="/workspace/keys">Keys</a><a href="/workspace/subscription">Subscription</a><a href="/workspace/usage">Usage</a><a href="/workspace/overrides">Overrides</a><a href="/workspace/watches">Watches</a><a href="/workspace/webhooks">Webhooks</a><a href="/workspace/model">Model</a>
<form method="post" action="/workspace/sign-out">${csrfField(chrome.csrf)}<span title="${chrome.email}">${chrome.email}</span> <button type="submit">Sign out</button></form>`
    : html``;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
${opts.refreshSeconds ? `<meta http-equiv="refresh" content="${Math.round(opts.refreshSeconds)}">` : ''}<title>${esc(title)} — risk-api workspace</title><style>${STYLE}</style></head>
<body><header><strong>risk-api · API mode</strong>${nav}</header><main><h1>${esc(title)}</h1>${body}</main>
<script src="/workspace/assets/app.js" defer></script></body></html>`;
}
