import { styleHash } from '../checkout/page-security.ts';

/**
 * The dashboard's one stylesheet, inline and allowed by its hash. Light by default, dark
 * when the system prefers it, and either one when the theme toggle says so (data-theme).
 */
export const DASHBOARD_CSS = `
:root{--bg:#f6f7f9;--panel:#fff;--fg:#14161a;--muted:#555d68;--line:#d6dae0;--accent:#1f4fd1;--accent-fg:#fff;--ok:#16703a;--bad:#a3202a;--warn-bg:#fff4d6;--warn-fg:#5c4100;color-scheme:light}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--bg:#111317;--panel:#1b1e24;--fg:#eef0f3;--muted:#a9b0bb;--line:#343a44;--accent:#8fb0ff;--accent-fg:#0b1020;--ok:#6fd39a;--bad:#ff9aa2;--warn-bg:#3a2f0c;--warn-fg:#ffe3a1;color-scheme:dark}}
:root[data-theme=dark]{--bg:#111317;--panel:#1b1e24;--fg:#eef0f3;--muted:#a9b0bb;--line:#343a44;--accent:#8fb0ff;--accent-fg:#0b1020;--ok:#6fd39a;--bad:#ff9aa2;--warn-bg:#3a2f0c;--warn-fg:#ffe3a1;color-scheme:dark}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}
header{display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px;padding:10px 16px;background:var(--panel);border-bottom:1px solid var(--line)}
header .brand{font-weight:700;margin-right:auto;display:flex;align-items:center;min-width:0}
header .brand .name{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;min-width:0}
header .controls{display:flex;gap:8px;flex-wrap:wrap}
form.search{display:flex;gap:6px}
form.search input{width:16em}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.banner.sandbox{background:#fff1c2;color:#4a3600;border-bottom:2px solid #b38600;text-align:center}
:root[data-theme=dark] .banner.sandbox{background:#3a2f0c;color:#ffe3a1}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]) .banner.sandbox{background:#3a2f0c;color:#ffe3a1}}
ul.origins{list-style:none;padding:0;margin:0 0 12px}
ul.origins li{display:flex;flex-wrap:wrap;align-items:center;gap:10px;padding:6px 0;border-bottom:1px solid var(--line)}
tr.attempt td{vertical-align:middle;border-bottom:0}
tr.exchange td{padding-top:0}
details.json summary,tr.exchange summary{cursor:pointer}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:8px;font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;max-height:24em;overflow:auto}
h3{font-size:1rem;margin:.8em 0 .3em}
label.check{flex-direction:row;align-items:center;gap:6px}
label.wide input{width:22em}
.chart text{font-size:11px}
nav ul{display:flex;flex-wrap:wrap;gap:4px 14px;list-style:none;margin:0;padding:0}
nav a[aria-current=page]{font-weight:700;text-decoration:none;color:var(--fg)}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.5rem;margin:.2em 0 .6em}
h2{font-size:1.15rem;margin:1.4em 0 .5em}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:14px 16px;margin:0 0 16px}
.panel>h2:first-child{margin-top:0}
.actions{display:flex;flex-wrap:wrap;gap:12px 24px;align-items:flex-end}
.badge{display:inline-block;margin-left:6px;padding:1px 8px;border-radius:999px;border:1px solid var(--accent);color:var(--accent);font-size:.8rem;font-weight:600}
.banner{background:var(--warn-bg);color:var(--warn-fg);border-bottom:1px solid var(--line);padding:10px 16px}
.notice{border-left:4px solid var(--accent);padding:8px 12px;background:var(--panel);margin:0 0 16px}
.error{border-left-color:var(--bad)}
.stats{display:flex;flex-wrap:wrap;gap:16px}
.stats div{min-width:140px}
.stats strong{display:block;font-size:1.4rem}
.muted{color:var(--muted)}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;background:var(--panel)}
th,td{text-align:left;padding:7px 10px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.85rem;color:var(--muted);font-weight:600}
td.num,th.num{text-align:right;white-space:nowrap}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;overflow-wrap:anywhere}
pre.json{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.8em;white-space:pre-wrap;overflow-wrap:anywhere;margin:.4em 0;max-width:60ch}
details>summary{cursor:pointer}
form.inline{display:inline}
.fields{display:flex;flex-wrap:wrap;gap:10px 14px;align-items:flex-end}
label{display:flex;flex-direction:column;gap:3px;font-size:.9rem}
input,select,button,textarea{font:inherit;color:var(--fg);background:var(--panel);border:1px solid var(--muted);border-radius:6px;padding:6px 9px;max-width:100%}
input[type=checkbox]{width:auto}
button{cursor:pointer;background:var(--accent);color:var(--accent-fg);border-color:var(--accent);font-weight:600}
button.secondary{background:var(--panel);color:var(--accent)}
button.danger{background:var(--bad);border-color:var(--bad);color:var(--panel)}
header button{padding:4px 9px;font-size:.9rem}
.status-ok{color:var(--ok);font-weight:600}
.status-bad{color:var(--bad);font-weight:600}
.chart{width:100%;height:auto;display:block}
.chart .bar{fill:var(--accent)}
.chart .axis{stroke:var(--line)}
.chart text{fill:var(--muted);font-size:11px}
.signin{max-width:380px;margin:8vh auto}
.signin label{margin-bottom:12px}
.signin input{width:100%}
.secret{display:block;padding:8px;border:1px dashed var(--accent);border-radius:6px;margin:6px 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.pager{display:flex;gap:12px;margin:12px 0}
.toast{position:fixed;left:50%;bottom:16px;transform:translateX(-50%);margin:0;padding:8px 14px;border-radius:6px;background:var(--fg);color:var(--bg);font-weight:600}
.toast:empty{padding:0}
.copy-field{display:flex;flex-wrap:wrap;gap:6px;align-items:flex-end}
.copy-field input{flex:1 1 14em;min-width:0}
@media (max-width:600px){main{padding:10px}th,td{padding:6px}.hide-narrow{display:none}dl.facts{grid-template-columns:1fr}dl.facts dt{margin-top:6px}
header{display:grid;grid-template-columns:minmax(0,1fr);gap:8px;padding:8px 10px}
header .brand{margin:0}
nav ul{flex-wrap:nowrap;gap:14px}
form.search input{flex:1;width:auto;min-width:0}
header .controls{gap:6px}
header .controls button{font-size:.8rem;padding:3px 7px}
.fields{display:grid;grid-template-columns:1fr 1fr;align-items:end}
.fields label{min-width:0}
.fields input,.fields select{width:100%}
label.wide,label.check{grid-column:1/-1}label.wide input{width:100%}
tr.attempt td:first-child{white-space:nowrap}
.chart text{font-size:22px}}
`;

export const DASHBOARD_STYLE_HASH = styleHash(DASHBOARD_CSS);
