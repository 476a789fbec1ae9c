/**
 * The scripts of the view's pages (inline, as the report's are). They put
 * text in the page with `textContent` only, never as HTML, so a record's
 * text cannot run or load anything.
 *
 * @since 0.7.0
 */

/**
 * The index page's script: the text filter hides the rows without it; two
 * ticked runs enable the comparison button (the older one is its base).
 *
 * @category scripts
 * @since 0.7.0
 */
export const indexScript = `
(() => {
  const rows = [...document.querySelectorAll("#runs tbody tr")];
  const filter = document.getElementById("filter");
  const shown = document.getElementById("shown");
  const button = document.getElementById("compare");
  const apply = () => {
    const q = (filter?.value ?? "").toLowerCase();
    let n = 0;
    for (const row of rows) { const keep = row.textContent.toLowerCase().includes(q); row.hidden = !keep; if (keep) n++; }
    if (shown) shown.textContent = n + " of " + rows.length + " runs";
  };
  filter?.addEventListener("input", apply);
  const picks = [...document.querySelectorAll("input.pick")];
  const picked = () => picks.filter((p) => p.checked).map((p) => p.value);
  for (const p of picks) p.addEventListener("change", () => { if (button) button.disabled = picked().length !== 2; });
  button?.addEventListener("click", () => {
    // Rows are newest first: the older run is the base.
    const [newer, older] = picked();
    location.href = "/compare?base=" + encodeURIComponent(older) + "&new=" + encodeURIComponent(newer);
  });
  apply();
})();
`

/**
 * The run page's script over `api` (`/api/runs/KEY`): the trials' table,
 * a page at a time from `api/trials` with the filters of the bar, and the
 * run's events (`api/events`): each new trial refreshes the page shown
 * (at most twice a second) and counts in the bar, and each progress says
 * how many trials the file holds beside those the figures above count.
 *
 * @category scripts
 * @since 0.7.0
 */
export const runScript = (api: string, trialHref: string): string => `
(() => {
  const API = ${JSON.stringify(api).replace(/</g, "\\u003c")};
  const TRIAL = ${JSON.stringify(trialHref).replace(/</g, "\\u003c")};
  const LIMIT = 50;
  let offset = 0;
  let total = 0;
  const $ = (id) => document.getElementById(id);
  const body = document.querySelector("#trials tbody");
  const cell = (row, text, cls) => { const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; row.appendChild(td); return td; };
  const query = () => {
    const p = new URLSearchParams({ offset: String(offset), limit: String(LIMIT) });
    for (const id of ["q", "status", "scorer", "group"]) { const v = $(id).value; if (v) p.set(id, v); }
    return p;
  };
  let loading = false, again = false;
  const load = async () => {
    if (loading) { again = true; return; }
    loading = true;
    try {
      const res = await fetch(API + "/trials?" + query());
      const page = await res.json();
      if (!res.ok) { $("count").textContent = page.error ?? "error"; return; }
      total = page.total;
      body.replaceChildren();
      for (const t of page.trials) {
        const row = document.createElement("tr");
        const a = document.createElement("a"); a.href = TRIAL + encodeURIComponent(t.id); a.textContent = t.id;
        const first = document.createElement("td"); first.className = "mono"; first.appendChild(a); row.appendChild(first);
        cell(row, t.task_id, "mono");
        const status = cell(row, "");
        const badge = document.createElement("span"); badge.className = "badge " + (t.status === "completed" ? "ok" : "fail"); badge.textContent = t.status; status.appendChild(badge);
        cell(row, Math.round(t.metadata.latency_ms) + " ms", "num");
        cell(row, Object.entries(t.scores ?? {}).map(([n, s]) => n + " " + (s.passed ? "passed" : "failed")).join(", "));
        cell(row, (t.error ? t.error.type + ": " + t.error.message : t.output?.output_text ?? "").slice(0, 300));
        body.appendChild(row);
      }
      $("count").textContent = total === 0 ? "no trials" : (offset + 1) + "–" + Math.min(offset + LIMIT, total) + " of " + total + " trials";
      $("prev").disabled = offset === 0;
      $("next").disabled = offset + LIMIT >= total;
    } finally {
      loading = false;
      if (again) { again = false; load(); }
    }
  };
  for (const id of ["status", "scorer", "group"]) $(id).addEventListener("change", () => { offset = 0; load(); });
  $("q").addEventListener("input", () => { offset = 0; load(); });
  $("prev").addEventListener("click", () => { offset = Math.max(0, offset - LIMIT); load(); });
  $("next").addEventListener("click", () => { if (offset + LIMIT < total) { offset += LIMIT; load(); } });
  let timer = null;
  const soon = () => { if (timer === null) timer = setTimeout(() => { timer = null; load(); }, 500); };
  let arrived = 0;
  const events = new EventSource(API + "/events");
  events.addEventListener("trial", () => { arrived++; $("live").textContent = "live: " + arrived + " new trials"; soon(); });
  let loaded = null;
  events.addEventListener("progress", (e) => {
    const p = JSON.parse(e.data);
    if (loaded === null) loaded = p.trials;
    $("progress").textContent = p.trials + " trials in the file (" + p.completed + " completed, " + p.failed + " failed)" +
      (p.trials > loaded ? "; the figures above count the " + loaded + " there were when the page opened: reload to update them" : "");
  });
  events.addEventListener("end", () => { $("live").textContent += (arrived > 0 ? " · " : "") + "the run's file stopped growing"; events.close(); });
  load();
})();
`
