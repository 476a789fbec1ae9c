/**
 * The report table's inline script and its styles: rows come from the JSON
 * block `#rows-data` and are built with text nodes only (no user text is
 * ever parsed as HTML), each bidirectional or control character shown as its
 * code point in a `.ctl` span, as the server's escaping shows it (the same
 * `CONTROLS` and mark); a search box filters by any text as shown, a toggle
 * keeps the failures, and a select per scorer keeps its passes or its
 * failures. At most `PAGE` rows are in the document at once, a page of the
 * matching rows: "Next" and "Previous" replace them with the next or the
 * previous page, so a large report never holds every row in the DOM. When the page says the file carries usage (`data.usage`),
 * each row has a tokens cell and, when priced, a cost cell, the row's own
 * texts (an em dash where it has none). When it says the rows carry
 * trajectories (`data.trajectory`), each row has a steps cell and a path
 * cell whose `<details>` opens the transcript, one list item per step, in a
 * row of its own below (opening the trial's row opens it too), no wider than
 * the table's visible part, so it wraps within the page.
 *
 * @internal
 */
import { CONTROLS } from "../../internal/htmlText.ts"

/** @internal */
export const tableCss = `
.controls{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:center;margin-bottom:10px}
.controls input[type=search]{flex:1 1 260px;padding:7px 10px;border:1px solid #d1d5db;border-radius:8px;font:inherit}
.controls label{display:flex;gap:6px;align-items:center;color:#374151;white-space:nowrap}
.controls select{padding:5px 6px;border:1px solid #d1d5db;border-radius:6px;font:inherit;background:#fff}
#count{color:#6b7280;font-size:12px;margin-bottom:6px}
.table-wrap{max-height:900px;overflow:auto;border:1px solid #eef0f3;border-radius:8px}
#rows td{max-width:340px}
#rows td:first-child{min-width:130px}
#rows td .clamp{display:-webkit-box;-webkit-line-clamp:4;-webkit-box-orient:vertical;overflow:hidden;white-space:pre-wrap;overflow-wrap:anywhere}
#rows tr.open td .clamp{display:block;-webkit-line-clamp:unset}
#rows tbody tr{cursor:pointer}
#rows tbody tr:hover{background:#f9fafb}
#rows tr.failing td:first-child{box-shadow:inset 3px 0 0 #ef4444}
.score{display:inline-block;margin:0 4px 3px 0}
.err-type{font-weight:600;color:#991b1b}
.muted{color:#9ca3af}
#rows details.path summary{cursor:pointer;white-space:nowrap}
#rows tr.transcript-row td{max-width:none;background:#fafafa}
#rows .transcript-box{position:sticky;left:8px;box-sizing:border-box;cursor:auto}
#rows ol.transcript{margin:6px 0 0;padding-left:22px;min-width:0}
#rows ol.transcript li{margin:0 0 6px}
#rows ol.transcript .step{font-weight:600}
#rows ol.transcript li.tool-error .step{color:#991b1b}
#rows ol.transcript .body{white-space:pre-wrap;overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
button.more{margin-top:10px;padding:6px 14px;border:1px solid #d1d5db;border-radius:8px;background:#fff;font:inherit;cursor:pointer}
`

/** @internal */
export const tableScript = `
(function () {
  "use strict";
  var PAGE = 200;
  var data = JSON.parse(document.getElementById("rows-data").textContent);
  var rows = data.rows;
  var tbody = document.querySelector("#rows tbody");
  var search = document.getElementById("search");
  var onlyFailures = document.getElementById("only-failures");
  var count = document.getElementById("count");
  var more = document.getElementById("more");
  var wrap = document.querySelector("#trials .table-wrap") || document.querySelector(".table-wrap");
  var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-scorer]"));
  var start = 0;
  var prev = document.getElementById("prev");
  var matches = [];
  var CONTROLS = /${CONTROLS.source}/g;

  // A control's code point as the server's escaping shows it: <U+202E>.
  function mark(c) {
    return "<U+" + ("000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + ">";
  }
  function plain(s) {
    return String(s).replace(CONTROLS, mark);
  }
  // Appends s as text, each control as its mark in a span of its own.
  function put(e, s) {
    s = String(s);
    var last = 0;
    var m;
    CONTROLS.lastIndex = 0;
    while ((m = CONTROLS.exec(s)) !== null) {
      if (m.index > last) e.appendChild(document.createTextNode(s.slice(last, m.index)));
      var c = document.createElement("span");
      c.className = "ctl";
      c.textContent = mark(m[0]);
      e.appendChild(c);
      last = m.index + m[0].length;
    }
    if (last < s.length) e.appendChild(document.createTextNode(s.slice(last)));
  }

  function text(r) {
    var parts = [r.id, r.task_id, r.status, r.input || "", r.reference || "", r.output || ""];
    if (r.error) parts.push(r.error.type, r.error.message);
    Object.keys(r.scores).forEach(function (name) {
      var s = r.scores[name];
      parts.push(name, s.explanation || "", s.error || "");
    });
    if (r.trajectory) r.trajectory.transcript.forEach(function (s) { parts.push(s.name || "", s.text); });
    return plain(parts.join("\\n")).toLowerCase();
  }
  var haystacks = rows.map(text);

  function el(tag, className, content) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (content !== undefined && content !== null) put(e, content);
    return e;
  }
  function clamped(value) {
    var td = el("td");
    if (value === null || value === undefined || value === "") td.appendChild(el("span", "muted", "—"));
    else td.appendChild(el("div", "clamp", value));
    return td;
  }
  function badge(label, ok) {
    return el("span", "badge " + (ok ? "ok" : "fail"), label);
  }
  function usageCell(value) {
    var td = el("td", "num");
    if (value === null || value === undefined) td.appendChild(el("span", "muted", "—"));
    else put(td, value);
    return td;
  }
  var STEP = { model: "model turn", tool_call: "tool call", tool_result: "tool result", user_message: "user", assistant_message: "assistant" };
  // The path cell's summary; its transcript opens in a row of its own below
  // the trial's (setOpen), as wide as the table's visible part, so it wraps
  // within the page however wide the other cells make the table.
  function pathCell(t, tr) {
    var td = el("td");
    if (!t) { td.appendChild(el("span", "muted", "—")); return td; }
    var details = el("details", "path");
    var summary = el("summary", "", t.tool_calls + " tool call" + (t.tool_calls === 1 ? "" : "s") +
      (t.tool_errors > 0 ? " (" + t.tool_errors + " error" + (t.tool_errors === 1 ? "" : "s") + ")" : ""));
    details.appendChild(summary);
    // Opening the transcript does not open the row.
    summary.addEventListener("click", function (e) {
      e.preventDefault();
      e.stopPropagation();
      setOpen(tr, t, details, !details.open);
    });
    td.appendChild(details);
    return td;
  }
  function setOpen(tr, t, details, open) {
    details.open = open;
    var next = tr.nextElementSibling;
    var shown = next !== null && next.classList.contains("transcript-row");
    if (open && !shown) tr.after(transcriptRow(t, tr.children.length));
    if (!open && shown) next.remove();
  }
  function transcriptRow(t, columns) {
    var row = el("tr", "transcript-row");
    var td = el("td");
    td.colSpan = columns;
    var box = el("div", "transcript-box");
    box.style.maxWidth = Math.max(320, wrap.clientWidth - 24) + "px";
    var list = el("ol", "transcript");
    t.transcript.forEach(function (s) {
      var li = el("li", s.error ? "tool-error" : "");
      li.appendChild(el("span", "step", STEP[s.type] + (s.name ? " " + s.name : "") + (s.error ? " (error)" : "")));
      li.appendChild(el("span", "muted", " " + fmt(s.ms) + " ms" + (s.tokens ? " · " + s.tokens + " tokens" : "")));
      if (s.text !== "") li.appendChild(el("div", "body", s.text));
      list.appendChild(li);
    });
    if (t.more > 0) list.appendChild(el("li", "muted", t.more + " more steps (in the record)"));
    box.appendChild(list);
    td.appendChild(box);
    row.appendChild(td);
    // Reading or selecting the transcript does not close the row.
    row.addEventListener("click", function (e) { e.stopPropagation(); });
    return row;
  }
  function fmt(v) {
    return Math.abs(v) >= 100 ? String(Math.round(v)) : String(Number(v.toPrecision(3)));
  }

  function rowElement(r) {
    var tr = el("tr", r.failing ? "failing" : "");
    var id = el("td", "mono");
    id.appendChild(el("div", "clamp", r.id));
    tr.appendChild(id);
    var status = el("td");
    status.appendChild(el("span", "badge " + (r.status === "completed" ? "ok" : r.status === "partial" ? "warn" : "fail"), r.status));
    tr.appendChild(status);
    tr.appendChild(clamped(r.input));
    tr.appendChild(clamped(r.reference));
    tr.appendChild(clamped(r.output));
    var scores = el("td");
    var names = Object.keys(r.scores);
    if (names.length === 0) scores.appendChild(el("span", "muted", "—"));
    names.forEach(function (name) {
      var s = r.scores[name];
      var b = badge(name + " " + fmt(s.value), s.passed && !s.error);
      b.classList.add("score");
      var why = [s.error, s.explanation].filter(Boolean).join("\\n");
      if (why) b.title = plain(why);
      scores.appendChild(b);
    });
    tr.appendChild(scores);
    var error = el("td");
    if (r.error) {
      var box = el("div", "clamp");
      box.appendChild(el("span", "err-type", r.error.type));
      put(box, ": " + r.error.message);
      error.appendChild(box);
    } else {
      var scoreErrors = names.filter(function (n) { return r.scores[n].error; });
      if (scoreErrors.length > 0) error.appendChild(el("div", "clamp", scoreErrors.map(function (n) { return n + ": " + r.scores[n].error; }).join("\\n")));
      else error.appendChild(el("span", "muted", "—"));
    }
    tr.appendChild(error);
    tr.appendChild(r.cache === "hit" ? el("td", "num muted", "cached") : el("td", "num", fmt(r.latency_ms)));
    if (data.usage) {
      tr.appendChild(usageCell(r.usage && r.usage.tokens));
      if (data.usage.cost) tr.appendChild(usageCell(r.usage && r.usage.cost));
    }
    if (data.trajectory) {
      tr.appendChild(usageCell(r.trajectory ? String(r.trajectory.steps) : null));
      tr.appendChild(pathCell(r.trajectory, tr));
    }
    // A row opens into its texts in full and, with a trajectory, its transcript (as the page says).
    tr.addEventListener("click", function () {
      var open = tr.classList.toggle("open");
      var details = tr.querySelector("details.path");
      if (details) setOpen(tr, r.trajectory, details, open);
    });
    return tr;
  }

  function keep(r, i, needle) {
    if (onlyFailures.checked && !r.failing) return false;
    for (var j = 0; j < selects.length; j++) {
      var want = selects[j].value;
      if (want === "all") continue;
      var s = r.scores[selects[j].getAttribute("data-scorer")];
      var passed = s !== undefined && s.passed && !s.error;
      if (want === "passed" ? !passed : passed) return false;
    }
    return needle === "" || haystacks[i].indexOf(needle) !== -1;
  }

  function render() {
    var fragment = document.createDocumentFragment();
    var end = Math.min(start + PAGE, matches.length);
    for (var i = start; i < end; i++) fragment.appendChild(rowElement(rows[matches[i]]));
    tbody.replaceChildren(fragment);
    count.textContent = "Showing " + (start === 0 ? "" : "rows " + (start + 1).toLocaleString("en-US") + "–") +
      end.toLocaleString("en-US") + " of " + matches.length.toLocaleString("en-US") +
      " matching rows (" + rows.length.toLocaleString("en-US") + " rows in this report" +
      (data.leftOut > 0 ? "; " + data.leftOut.toLocaleString("en-US") + " more trials in the file are not in the table" : "") + ")";
    more.hidden = end >= matches.length;
    prev.hidden = start === 0;
  }

  function apply() {
    var needle = search.value.trim().toLowerCase();
    matches = [];
    for (var i = 0; i < rows.length; i++) if (keep(rows[i], i, needle)) matches.push(i);
    start = 0;
    render();
  }

  search.addEventListener("input", apply);
  onlyFailures.addEventListener("change", apply);
  selects.forEach(function (s) { s.addEventListener("change", apply); });
  more.addEventListener("click", function () { if (start + PAGE < matches.length) { start += PAGE; render(); } });
  prev.addEventListener("click", function () { start = Math.max(0, start - PAGE); render(); });
  apply();
})();
`
