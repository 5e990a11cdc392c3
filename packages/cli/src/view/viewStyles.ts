/** The page's styles: system fonts only, light and dark. */
export const VIEW_STYLES = `
:root{--bg:#fff;--fg:#1d2330;--dim:#677085;--line:#e3e6ee;--panel:#f6f7fa;--accent:#2f62d8;--ok:#18804b;--warn:#a86400;--err:#c2262d;--sel:#fff4c2;--chart-off:#b7bfcf;--chart-rx:#18804b;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#14171d;--fg:#dde2ec;--dim:#8d96a8;--line:#2a303b;--panel:#1b1f27;--accent:#7aa2ff;--ok:#4cc486;--warn:#e0a341;--err:#ff6b6b;--sel:#3a3418;--chart-off:#4a5263;--chart-rx:#4cc486}}
*{box-sizing:border-box}
html,body{margin:0;height:100%;background:var(--bg);color:var(--fg);font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
code,.mono,.row,.json{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
a{color:var(--accent)}
#app{display:grid;grid-template-rows:auto 1fr;height:100vh}
header{display:flex;gap:16px;align-items:baseline;padding:8px 14px;border-bottom:1px solid var(--line);flex-wrap:wrap}
header h1{font-size:15px;margin:0}
header .meta{color:var(--dim)}
.live{color:var(--ok);font-weight:600}
main{display:grid;grid-template-columns:minmax(0,58fr) minmax(360px,42fr);min-height:0}
.left{display:grid;grid-template-rows:auto 1fr;min-height:0;border-right:1px solid var(--line)}
.filters{padding:6px 10px;border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:4px 10px;align-items:center}
.filters label{white-space:nowrap;cursor:pointer}
.filters .count{color:var(--dim)}
.filters select,.filters input[type=search]{font:inherit}
.list{overflow:auto;position:relative;min-height:0}
.spacer{position:relative;width:100%}
.row{position:absolute;left:0;right:0;height:22px;line-height:22px;padding:0 8px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;cursor:pointer;border-bottom:1px solid var(--line)}
.row:hover{background:var(--panel)}
.row.reg .pos{border-left:3px solid var(--chart-off)}
.row.sel{background:var(--sel)}
.row.after{opacity:.55}
.row .pos{display:inline-block;width:6.5ch;text-align:right;color:var(--dim);margin-right:8px}
.row .time{color:var(--dim);margin-right:8px}
.row .type{display:inline-block;width:21ch;margin-right:6px;color:var(--accent)}
.row .ext{color:var(--dim);margin-right:6px}
.row.ok .text{color:var(--ok)}.row.warn .text{color:var(--warn)}.row.error .text{color:var(--err)}
.row .rule{margin-left:8px;font-size:11px}
.right{overflow:auto;min-height:0;padding:10px 14px}
.scrubber{position:sticky;top:-10px;background:var(--bg);padding:6px 0 8px;border-bottom:1px solid var(--line);z-index:1}
.scrubber input[type=range]{width:100%}
.scrubber .controls{display:flex;gap:8px;align-items:center}
.scrubber input[type=number]{width:9ch;font:inherit}
h2{font-size:13px;margin:14px 0 4px;text-transform:uppercase;letter-spacing:.04em;color:var(--dim)}
ul.names{margin:0;padding:0;list-style:none;display:flex;flex-wrap:wrap;gap:3px 6px}
ul.names li{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;background:var(--panel);border:1px solid var(--line);border-radius:3px;padding:0 4px}
.none{color:var(--dim)}
table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:1px 6px 1px 0;border-bottom:1px solid var(--line);font-size:12px}
.diag li{color:var(--warn)}
.tokens .figure{font-size:14px}
.tokens .legend{color:var(--dim);font-size:11px}
svg.chart{width:100%;height:90px;display:block;background:var(--panel);border:1px solid var(--line);cursor:crosshair}
.detail .json{white-space:pre-wrap;word-break:break-all;background:var(--panel);border:1px solid var(--line);padding:6px;max-height:320px;overflow:auto}
.changes{margin:0;padding-left:18px}
.rules a{margin-right:8px}
button{font:inherit;cursor:pointer}
.more{border:none;background:none;color:var(--accent);padding:0}
`;
