// The pages' one stylesheet and the sell page's one script, inline and allowed by the
// Content-Security-Policy through their SHA-256 hashes: no other style or script can run, and no
// page needs a second request. Both are constants of this module (never listing data).
import { createHash } from "node:crypto";

const STYLE = `
:root{--ink:#1a1d21;--muted:#4a5361;--line:#c9ced6;--bg:#fff;--panel:#f4f6f8;--accent:#0b57d0;--ok:#0d6b2f;--bad:#a3121c;--warn:#7a4a00;color-scheme:light}
*{box-sizing:border-box}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
body{margin:0}
main{overflow-wrap:anywhere}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #f0b400;outline-offset:2px}
.skip{position:absolute;left:-9999px;top:0;background:var(--ink);color:#fff;padding:.5rem 1rem}
.skip:focus{left:1rem}
header.site,footer.site{background:var(--panel);border-bottom:1px solid var(--line)}
footer.site{border-top:1px solid var(--line);border-bottom:0;margin-top:3rem}
.wrap{max-width:72rem;margin:0 auto;padding:1rem}
header.site .wrap{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;justify-content:space-between}
.brand{font-weight:700;font-size:1.15rem;color:var(--ink);text-decoration:none}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
h1{font-size:1.6rem;line-height:1.25;margin:.5rem 0 1rem}
h2{font-size:1.25rem;margin:2rem 0 .75rem}
h3{font-size:1.05rem;margin:1.25rem 0 .5rem}
.card h3{margin:0}
.lead{font-size:1.05rem;color:var(--muted);max-width:48rem}
form.filters{background:var(--panel);border:1px solid var(--line);border-radius:.5rem;padding:1rem;margin:1rem 0}
form.filters .bar{display:grid;grid-template-columns:minmax(0,1fr) auto auto;gap:.75rem;align-items:end}
form.filters .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:.75rem;align-items:end;margin-top:.75rem}
details.more summary{cursor:pointer;font-weight:600;margin-top:.75rem;padding:.25rem 0}
.layout{display:grid;gap:1.5rem;grid-template-columns:minmax(0,1fr)}
.results h2{margin-top:.5rem}
.results>p.muted{font-size:.9rem;margin-top:0}
.summary{border:1px solid var(--line);border-radius:.5rem;padding:1rem;background:var(--panel);align-self:start}
.summary h2{margin:0 0 .5rem}
.summary figure{margin:0}
.summary h3{font-size:1rem;margin:1rem 0 .25rem}
ol.mini{list-style:none;margin:0;padding:0}
ol.mini li{display:flex;gap:.5rem;align-items:baseline;flex-wrap:wrap;margin:.35rem 0}
.bars{width:100%;max-width:20rem;height:auto;display:block;margin:.25rem 0}
.muted{color:var(--muted)}
.small{font-size:.85rem}
.card-head{display:flex;gap:.75rem;align-items:center}
.icon{flex:none;display:inline-flex;align-items:center;justify-content:center;width:2.5rem;height:2.5rem;border-radius:.5rem;color:#fff;font-weight:700;font-size:1.2rem;line-height:1}
.icon.small{width:1.5rem;height:1.5rem;font-size:.85rem;border-radius:.3rem;align-self:center}
.c0{background:#0b57d0}.c1{background:#1f7a3a}.c2{background:#8e24aa}.c3{background:#b3261e}.c4{background:#00695c}.c5{background:#5d4037}
.chips{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.35rem}
.chips a{display:inline-block;padding:.1rem .6rem;border:1px solid #b7c8f0;border-radius:1rem;background:#e8eefc;color:#0842a0;font-size:.85rem;text-decoration:none}
.chips a:hover{text-decoration:underline}
main>.chips{margin:0 0 1rem}
label{display:block;font-weight:600;font-size:.9rem;margin-bottom:.25rem}
label.check{display:flex;gap:.5rem;align-items:center;font-weight:600;min-height:2.5rem}
input,select,textarea{font:inherit;width:100%;padding:.5rem;border:1px solid #6b7380;border-radius:.375rem;background:#fff;color:var(--ink)}
input[type=checkbox]{width:1.25rem;height:1.25rem}
textarea{min-height:6rem}
button{font:inherit;font-weight:600;padding:.55rem 1.1rem;border:0;border-radius:.375rem;background:var(--accent);color:#fff;cursor:pointer}
.cards{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(20rem,1fr));gap:1rem}
.card{border:1px solid var(--line);border-radius:.5rem;padding:1rem;display:flex;flex-direction:column;gap:.5rem;min-width:0}
.card p{margin:0}
.desc{overflow-wrap:anywhere}
.mono,code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem}
.mono{overflow-wrap:anywhere}
pre{background:var(--panel);border:1px solid var(--line);border-radius:.375rem;padding:.75rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.facts{display:flex;flex-wrap:wrap;gap:.25rem .75rem;font-size:.9rem;color:var(--muted);margin:0;padding:0;list-style:none}
.badge{display:inline-block;border:1px solid currentColor;border-radius:1rem;padding:0 .5rem;font-size:.8rem;font-weight:600}
.healthy,.verified{color:var(--ok)}
.unhealthy{color:var(--bad)}
.drifted{color:var(--warn)}
.unknown{color:var(--muted)}
.pager{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between;margin:1.5rem 0}
dl.fields{display:grid;grid-template-columns:minmax(8rem,14rem) 1fr;gap:.35rem 1rem;margin:0}
dl.fields dt{font-weight:600}
dl.fields dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border-bottom:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top;overflow-wrap:normal}
td.mono{overflow-wrap:anywhere;min-width:8rem}
.table{overflow-x:auto}
.chart{max-width:40rem}
.chart svg{width:100%;height:auto;display:block}
.report li{margin:.25rem 0}
.pass{color:var(--ok);font-weight:600}
.fail{color:var(--bad);font-weight:600}
.twin{font-size:.9rem}
@media (min-width:64rem){.layout.with-summary{grid-template-columns:minmax(0,1fr) 20rem}}
@media (max-width:40rem){.wrap{padding:.75rem}.lead{font-size:1rem}.lead .wide{display:none}form.filters{padding:.75rem;margin:.75rem 0}form.filters .bar{grid-template-columns:minmax(0,1fr) auto;grid-template-areas:"query go" "order order";gap:.5rem}form.filters .grow{grid-area:query}form.filters .go{grid-area:go}form.filters .order{grid-area:order}form.filters .grow label{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}form.filters .order>div{display:flex;gap:.5rem;align-items:center}form.filters .order label{margin:0;flex:none;white-space:nowrap}details.more summary{margin-top:.5rem}.results h2{margin:.25rem 0 .25rem}dl.fields{grid-template-columns:1fr}dl.fields dd{margin-bottom:.5rem}h1{font-size:1.35rem}}
`.trim();

/**
 * The sell page's dry run: sends the form as the JSON body of POST /listings/validate and shows
 * the per-check report. The report is written with textContent only, so a seller's answer quoted
 * in a reason can never become markup.
 */
const SELL_SCRIPT = `
(function(){
var form=document.getElementById("validate-form");
var out=document.getElementById("validate-report");
if(!form||!out)return;
form.addEventListener("submit",function(event){
event.preventDefault();
var data=new FormData(form);
var body={resource:String(data.get("resource")||""),method:String(data.get("method")||"POST"),priceUsdc:String(data.get("priceUsdc")||""),description:String(data.get("description")||""),sellerPayTo:String(data.get("sellerPayTo")||"")};
var schema=String(data.get("inputSchema")||"").trim();
out.textContent="Checking...";
if(schema){try{body.inputSchema=JSON.parse(schema);}catch(e){out.textContent="The input schema is not valid JSON.";return;}}
fetch(form.getAttribute("action"),{method:"POST",headers:{"content-type":"application/json",accept:"application/json"},body:JSON.stringify(body)})
.then(function(response){return response.json().then(function(answer){return {status:response.status,answer:answer};});})
.then(function(result){
var answer=result.answer||{};
out.textContent="";
var heading=document.createElement("p");
heading.className=answer.ok?"pass":"fail";
heading.textContent=answer.ok?"Ready to list: every check passed (HTTP "+result.status+"). Nothing was charged or saved.":"Not ready (HTTP "+result.status+"): "+(answer.message||"a check failed.");
out.appendChild(heading);
var list=document.createElement("ul");
list.className="report";
(answer.checks||[]).forEach(function(check){
var item=document.createElement("li");
var mark=document.createElement("span");
mark.className=check.ok?"pass":"fail";
mark.textContent=(check.ok?"pass":"fail")+" ";
item.appendChild(mark);
var name=document.createElement("strong");
name.textContent=check.name;
item.appendChild(name);
item.appendChild(document.createTextNode((check.code?" ("+check.code+")":"")+(check.reason?": "+check.reason:"")));
list.appendChild(item);
});
(answer.fields||[]).forEach(function(field){
var item=document.createElement("li");
item.className="fail";
item.textContent=(field.field||field.in||"field")+": "+(field.message||"is invalid");
list.appendChild(item);
});
out.appendChild(list);
})
.catch(function(){out.textContent="The dry run could not be reached; try again.";});
});
})();
`.trim();

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

export const PAGE_STYLE = STYLE;
export const PAGE_SCRIPT = SELL_SCRIPT;

const BASE_POLICY = [
  "default-src 'none'",
  `style-src ${sha256(STYLE)}`,
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
];

/** The Content-Security-Policy of a page; `script`: the page runs the dry-run script (and fetches the dry run). */
export function contentSecurityPolicy(options: { script?: boolean } = {}): string {
  const policy = options.script
    ? [...BASE_POLICY, `script-src ${sha256(SELL_SCRIPT)}`, "connect-src 'self'"]
    : BASE_POLICY;
  return policy.join("; ");
}
