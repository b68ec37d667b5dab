// outcomes.js: one row per outcome, filterable and searchable; a row's details (every
// check with its evidence, error, output, tool calls, hooks, notes) open on click or
// Enter, since the toggle is a real <button>. Rows are shown a page at a time (PAGE_SIZE),
// and a row's elements and search text are made only when first needed: a page of
// 50,000 outcomes opens as fast as one of a hundred.

var PAGE_SIZE = 100;

var FILTERS = { status: "all", arm: "all", text: "" };

// A replayed outcome is the recording's run scored by today's checks: said on its row.
// A reused one is a replay found by content in the reuse store (see the reuse page of the docs).
function replayWord(o) {
  if (o.reused_from && typeof o.reused_from === "object") return "reused";
  if (o.replayed === true) return "replayed";
  return isNum(o.replayed_calls) && o.replayed_calls > 0 ? "partly replayed" : null;
}

function haystack(o) {
  var parts = [o.skill_name, o.case_name, o.runner, o.arm, o.status, o.nodeid, o.output, o.error, o.model, replayWord(o)];
  list(o.scores).forEach(function (sc) {
    parts.push(sc.evaluator, sc.detail);
    list(sc.checks).forEach(function (c) { parts.push(c.id, c.evidence); });
  });
  list(o.tool_calls).forEach(function (c) { parts.push(c.name, JSON.stringify(c.arguments)); });
  return parts.filter(function (p) { return p !== null && p !== undefined; }).join("\n").toLowerCase();
}

function scoreBlock(score) {
  var word = score.errored ? "ERRORED" : score.passed ? "passed" : "FAILED";
  var cls = score.errored ? "errored" : score.passed ? "passed" : "failed";
  var title = h("h4", {}, [score.evaluator + " ", h("span", { class: "status " + cls, text: word }), " " + (score.detail || "")]);
  var extra = [];
  if (score.cost_usd) extra.push("judge cost " + usd(score.cost_usd));
  if (score.cost_note) extra.push(score.cost_note);
  if (score.cost_usd && score.price_source) extra.push("cost source: " + score.price_source);
  var checks = list(score.checks);
  var body = checks.length ? table(["check", "verdict", "evidence"], checks.map(function (c) {
    return h("tr", { class: c.passed ? null : "check-failed" }, [
      cell(h("code", { text: c.id })),
      cell(h("span", { class: "status " + (c.passed ? "passed" : "failed"), text: c.passed ? "held" : "FAILED" })),
      cell(h("span", { class: "evidence", text: c.evidence })),
    ]);
  }), "checks") : null;
  return h("div", { class: "score" }, [title, extra.length ? h("p", { class: "muted", text: extra.join("; ") }) : null, body]);
}

function flag(value) {
  return value === true ? "yes" : value === false ? "no" : null;
}

function detailContent(o) {
  var parts = [];
  parts.push(definitions([
    ["node id", o.nodeid ? h("code", { text: o.nodeid }) : null],
    ["model", o.model],
    ["tokens", count(o.tokens) + " (input " + count(o.input_tokens) + ", output " + count(o.output_tokens) + ")"],
    ["cost", usd(o.cost_usd) + (o.retry_cost_usd ? ", retries " + usd(o.retry_cost_usd) : "")],
    ["cost source", o.price_source],
    ["latency", ms(o.latency_ms)],
    ["workspace (kept)", o.workspace ? h("code", { text: o.workspace }) : null],
    ["skill loaded", o.skill_loaded === null || o.skill_loaded === undefined ? "cannot tell" : flag(o.skill_loaded)],
    ["load note", o.load_note],
    ["skill triggered", flag(o.skill_triggered)],
    ["triggered by session", Array.isArray(o.skill_triggered_by_session) ? o.skill_triggered_by_session.map(function (v) { return v === null ? "?" : flag(v); }).join(", ") : null],
    ["cost note", o.cost_note],
    ["usage note", o.usage_note],
    ["stop note", o.stop_note],
    ["replayed", replayWord(o) ? replayWord(o) + " from a cassette recorded " + (o.recorded_at || "on an unknown date") +
      "; its output, latency and spend are the recording's, scored by the checks as they are now" : null],
    ["reused from", o.reused_from && typeof o.reused_from === "object" ? reusedFrom(o.reused_from) : null],
    ["not reused", o.reuse_note],
    ["cassette", o.cassette ? h("code", { text: o.cassette }) : null],
    ["cassette note", o.cassette_note],
  ]));
  if (o.error) parts.push(h("h4", { text: "Error" }), h("pre", { class: "error", text: o.error }));
  parts.push(h("h4", { text: "Checks" }));
  var scores = list(o.scores);
  if (!scores.length) parts.push(h("p", { class: "muted", text: "No evaluator scored this run." }));
  scores.forEach(function (sc) { parts.push(scoreBlock(sc)); });
  parts.push(h("h4", { text: "Output" }), h("pre", { class: "output", text: o.output || "" }));
  var calls = list(o.tool_calls);
  parts.push(h("h4", { text: "Tool calls (" + calls.length + ")" }));
  if (calls.length) {
    parts.push(h("ol", { class: "calls" }, calls.map(function (c) {
      return h("li", {}, [h("code", { text: c.name }), pre(JSON.stringify(c.arguments, null, 2))]);
    })));
  }
  var hooks = list(o.hooks);
  if (hooks.length) {
    parts.push(h("h4", { text: "Hooks (" + hooks.length + ")" }));
    parts.push(table(["hook", "event", "outcome", "#exit", "output"], hooks.map(function (k) {
      var out = [k.stdout ? pre("stdout: " + k.stdout) : null, k.stderr ? pre("stderr: " + k.stderr) : null];
      return h("tr", {}, [cell(k.name), cell(k.event), cell(k.outcome), cell(k.exit_code, true), cell(out)]);
    })));
  }
  parts.push(h("p", { class: "note", text: "Transcripts are not recorded in the report: the output, tool calls and evidence above are what the JSON report keeps." }));
  return parts;
}

// "commit 1a2b3c4d, 2026-12-05T03:40:12Z, recorded by orders :: refund (candidate, repeat 1)"
function reusedFrom(r) {
  var item = r.item && typeof r.item === "object" ? r.item : {};
  var words = [r.commit ? "commit " + String(r.commit).slice(0, 8) : "no commit", r.recorded_at || "an unknown date"];
  return words.join(", ") + ", recorded by " + item.skill + " :: " + item.case + " (" + item.arm + ", repeat " + item.repeat +
    "); counted by the gate as a fresh outcome, none of its spend new";
}

function statusCell(o) {
  var word = replayWord(o);
  var badge = statusBadge(o.status, o.arm);
  return word ? [badge, " ", h("span", { class: "replayed", text: "(" + word + ")" })] : badge;
}

function outcomeRows(o, index) {
  var detailId = "outcome-" + index + "-detail";
  var detailCell = h("td", { colspan: 9 });
  var detail = h("tr", { class: "detail", id: detailId, hidden: true }, detailCell);
  var toggle = h("button", { type: "button", class: "toggle", "aria-expanded": "false", "aria-controls": detailId, text: o.case_name });
  var opening = false;
  toggle.addEventListener("click", function () {
    var open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    detail.hidden = !open;
    if (!open || opening) return;
    opening = true; // built on first open, once its evidence is decompressed
    evidenceOf(index).then(function (problem) {
      build(detailCell, {}, problem ? h("p", { class: "note", text: problem }) : detailContent(whole(o, index)));
      if (row.parentNode && !detail.parentNode) row.after(detail);
    });
  });
  var row = h("tr", { class: "outcome", "data-status": o.status, "data-arm": o.arm, "data-index": index }, [
    cell(toggle), cell(o.skill_name), cell(o.runner), cell(o.arm), cell(o.repeat_index, true),
    cell(statusCell(o)), cell(count(o.tokens), true), cell(usd((o.cost_usd || 0) + (o.retry_cost_usd || 0)), true), cell(ms(o.latency_ms), true),
  ]);
  return { row: row, detail: detail, toggle: toggle };
}

function matches(e, needle) {
  if (FILTERS.status !== "all" && e.outcome.status !== FILTERS.status) return false;
  if (FILTERS.arm !== "all" && e.outcome.arm !== FILTERS.arm) return false;
  if (!needle) return true;
  if (e.text === null) e.text = haystack(whole(e.outcome, e.index)); // made on the first search only
  return e.text.indexOf(needle) >= 0;
}

// view: {entries, body, counter, pager, page, shown}; shows the current page's rows.
function showPage(view) {
  var pages = Math.max(1, Math.ceil(view.shown.length / PAGE_SIZE));
  view.page = Math.min(Math.max(0, view.page), pages - 1);
  var start = view.page * PAGE_SIZE, rows = [];
  view.shown.slice(start, start + PAGE_SIZE).forEach(function (index) {
    var e = view.entries[index];
    if (!e.row) Object.assign(e, outcomeRows(e.outcome, index));
    e.detail.hidden = e.toggle.getAttribute("aria-expanded") !== "true";
    rows.push(e.row);
    if (e.detail.firstChild.hasChildNodes()) rows.push(e.detail); // a detail is placed once built
  });
  view.body.replaceChildren.apply(view.body, rows);
  view.counter.textContent = "showing " + view.shown.length + " of " + view.entries.length + " outcome(s)" +
    (FILTERS.text.trim() && view.problem ? "; names and figures searched only: " + view.problem : "");
  var last = Math.min(start + PAGE_SIZE, view.shown.length);
  view.pager.label.textContent = view.shown.length ? "rows " + (start + 1) + "–" + last + ", page " + (view.page + 1) + " of " + pages : "";
  view.pager.previous.disabled = view.page === 0;
  view.pager.next.disabled = view.page >= pages - 1;
  view.pager.box.hidden = pages < 2;
}

function applyFilters(view) {
  var needle = FILTERS.text.trim().toLowerCase();
  if (needle && !view.searchable) { // an outcome's search text needs its evidence: every block opened once
    view.counter.setAttribute("aria-busy", "true");
    view.counter.textContent = "opening the evidence to search it…";
    view.opening = view.opening || allEvidence().then(function (problem) {
      view.searchable = true;
      view.problem = problem;
      view.counter.removeAttribute("aria-busy");
      applyFilters(view);
    });
    return;
  }
  view.shown = [];
  view.entries.forEach(function (e, index) { if (matches(e, needle)) view.shown.push(index); });
  view.page = 0;
  showPage(view);
}

function pager(view) {
  var move = function (step) { return function () { view.page += step; showPage(view); }; };
  var previous = h("button", { type: "button", id: "outcome-previous", text: "previous page" });
  var next = h("button", { type: "button", id: "outcome-next", text: "next page" });
  previous.addEventListener("click", move(-1));
  next.addEventListener("click", move(1));
  var label = h("span", { id: "outcome-page", class: "muted" });
  return { box: h("div", { class: "pager" }, [previous, label, next]), previous: previous, next: next, label: label };
}

function select(id, label, values, key, onChange) {
  var control = h("select", { id: id }, values.map(function (v) { return h("option", { value: v, text: v }); }));
  control.addEventListener("change", function () { FILTERS[key] = control.value; onChange(); });
  return h("label", { for: id }, [label, control]);
}

function outcomesSection(report) {
  var outcomes = list(report.outcomes);
  if (!outcomes.length) return section("outcomes", "Outcomes", [h("p", { text: "No case produced an outcome." })]);
  holdEvidence(report, outcomes);
  var entries = outcomes.map(function (o, index) { return { outcome: o, index: index, text: null, row: null }; });
  var counter = h("span", { id: "outcome-count", class: "muted", role: "status" });
  var view = { entries: entries, counter: counter, page: 0, shown: [], searchable: false, opening: null, problem: null };
  var refresh = function () { applyFilters(view); };
  var search = h("input", { type: "search", id: "outcome-search", placeholder: "skill, case, output, evidence…" });
  search.addEventListener("input", function () { FILTERS.text = search.value; refresh(); });
  var controls = h("div", { class: "controls", role: "search" }, [
    select("status-filter", "Status", ["all", "passed", "failed", "errored"], "status", refresh),
    select("arm-filter", "Arm", ["all", "candidate", "baseline"], "arm", refresh),
    h("label", { for: "outcome-search" }, ["Search", search]),
    counter,
  ]);
  var grid = table(["case", "skill", "runner", "arm", "#repeat", "status", "#tokens", "#cost", "#latency"], [], "outcomes");
  grid.id = "outcome-table";
  view.body = grid.querySelector("tbody");
  view.pager = pager(view);
  refresh();
  return section("outcomes", "Outcomes", [
    h("p", { class: "muted", text: "Open a case (click, or Enter on its name) for every check with its evidence, the output, tool calls, hooks and notes." }),
    controls, grid, view.pager.box,
  ]);
}
