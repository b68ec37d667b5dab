// summary.js: the verdict with every reason, how the run was made, and its totals.

function verdictSection(report) {
  var gate = report.gate || {};
  var state = report.aborted ? "aborted" : gate.passed ? "passed" : "failed";
  var headline = report.aborted ? "Run aborted: no gate was computed, so this run is not a pass"
    : gate.passed ? "Gate passed" : "Gate FAILED";
  var children = [
    h("p", { class: "headline", text: headline }),
    h("p", { class: "muted", text: "exit code " + gate.exit_code }),
  ];
  // Runner fake measures wiring, not a skill: said beside the verdict, as on the console.
  var fakeNote = (report.summary || {}).fake_note;
  if (fakeNote) children.push(h("p", { class: "wiring", text: String(fakeNote) }));
  if (report.aborted) {
    children.push(h("p", {}, [h("strong", { text: "Why: " }), String(report.aborted_reason || "not said")]));
  }
  var reasons = list(gate.reasons);
  if (reasons.length) {
    children.push(h("h3", { text: gate.passed ? "Notes" : "Reasons" }));
    children.push(h("ul", { class: "reasons" }, reasons.map(function (r) { return h("li", { text: r }); })));
  }
  document.title = "skill-lens report: " + headline;
  return h("section", { id: "verdict", class: "verdict " + state, "aria-label": "gate verdict" }, children);
}

function runFacts(report) {
  var run = report.run || {};
  var parts = [String(run.tool || "pytest-skill-lens") + " " + String(run.version || "")];
  if (list(run.runners).length) parts.push("runners: " + run.runners.join(", "));
  parts.push("baseline: " + (run.baseline_kind || "none ran"));
  if (isNum(run.repeat)) parts.push("repeat " + (run.repeat_auto ? "auto:" : "") + run.repeat);
  if (run.shard) parts.push("shard " + run.shard);
  if (isNum(run.skills_found)) parts.push(run.skills_found + " skill(s) found");
  return h("p", { class: "muted", text: parts.join(" · ") });
}

function gateSettings(report) {
  var g = (report.run || {}).gate_settings;
  if (!g) return null;
  var perSkill = Object.keys(g.per_skill_min || {}).map(function (name) {
    return name + " " + pct(g.per_skill_min[name]);
  });
  return definitions([
    ["min pass rate", pct(g.min_pass_rate)],
    ["fail on error", g.fail_on_error ? "yes" : "no"],
    ["per-skill minimums", perSkill.join(", ")],
    ["min delta", isNum(g.min_delta) ? signedPct(g.min_delta) : null],
    ["min delta confidence", isNum(g.min_delta_confidence) ? pct(g.min_delta_confidence) : null],
    ["min case pass rate", isNum(g.min_case_pass_rate) ? pct(g.min_case_pass_rate) : null],
    ["max spend", isNum(g.max_spend_usd) ? usd(g.max_spend_usd) : null],
  ]);
}

function figure(label, value) {
  return h("div", { class: "figure" }, [h("div", { class: "value", text: value }), h("div", { class: "label", text: label })]);
}

function totalsSection(report) {
  var sum = report.summary || {};
  var figures = h("div", { class: "figures" }, [
    figure("pass rate (candidate arm)", pct(sum.pass_rate)),
    figure("cases run: passed / failed / errored", count(sum.total) + ": " + count(sum.passed) + " / " + count(sum.failed) + " / " + count(sum.errored)),
    figure("not run", count(sum.not_run)),
    figure("tokens", count(sum.total_tokens)),
    figure("cost (runs and retries)", usd(sum.total_cost_usd)),
    figure("judge overhead", usd(sum.judge_cost_usd)),
    figure("latency, summed", ms(sum.total_latency_ms)),
  ]);
  var children = [figures];
  // Where the costs came from, beside them: a list price, a product's own figure, a script.
  sourceLines(sum.price_sources, "Cost source: ").concat(sourceLines(sum.judge_price_sources, "Judge cost source: "))
    .forEach(function (line) { children.push(h("p", { class: "note price-source", text: line })); });
  if (sum.baseline_errored) children.push(h("p", { text: sum.baseline_errored + " baseline run(s) errored." }));
  if (sum.skill_not_loaded) children.push(h("p", { text: sum.skill_not_loaded + " candidate run(s) whose skill never reached the model." }));
  var arms = sum.by_arm || {};
  var names = Object.keys(arms);
  if (names.length > 1) {
    children.push(h("h3", { text: "By arm" }));
    children.push(table(["arm", "#tokens", "#cost", "#judge overhead", "#latency"], names.map(function (arm) {
      var a = arms[arm] || {};
      return h("tr", {}, [
        cell(arm), cell(count(a.tokens), true),
        cell(usd(a.cost_usd) + (a.cost_unpriced ? " (some unpriced)" : ""), true),
        cell(usd(a.judge_cost_usd), true), cell(ms(a.latency_ms), true),
      ]);
    }), "compact"));
  }
  var replay = replayLine(sum.replay);
  if (replay) children.push(h("p", { class: "note replay", text: replay }));
  var reuse = reuseLine(sum.reuse);
  if (reuse) children.push(h("p", { class: "note replay", text: reuse }));
  var savings = savingsLines(sum.not_spent).concat(sequentialLines(report.sequential));
  if (savings.length) {
    children.push(h("h3", { text: "Spent and not spent" }));
    children.push(h("ul", { class: "savings" }, savings.map(function (l) { return h("li", { text: l }); })));
  }
  var ceiling = report.spend_ceiling;
  if (ceiling) {
    var line = "Spend ceiling " + usd(ceiling.max_spend_usd) + ": " + usd(ceiling.spent_usd) + " spent";
    if (ceiling.unpriced) line += "; unpriced: " + ceiling.unpriced;
    children.push(h("p", { class: "note", text: line }));
  }
  var settings = gateSettings(report);
  if (settings) children.push(h("h3", { text: "Gate settings" }), settings);
  return section("totals", "Totals", children);
}

// Each source but "not priced" (the cost says that itself), as the console prints them.
function sourceLines(sources, label) {
  return list(sources).filter(function (s) { return s && s !== "not priced"; }).map(function (s) { return label + s; });
}

// How many outcomes came from cassettes and how old the oldest is, as the console says it.
function replayLine(replay) {
  if (!replay || !(replay.replayed || replay.partly_replayed)) return null;
  var line = "Replayed: " + count(replay.replayed) + " of " + count(replay.of) + " outcome(s) from cassettes";
  if (replay.partly_replayed) line += " (" + count(replay.partly_replayed) + " more partly)";
  if (replay.oldest_recorded_at) line += ", the oldest recorded " + replay.oldest_recorded_at;
  return line + (replay.note ? "; " + replay.note : "");
}

// Outcomes reused by content from the store (see the reuse page of the docs), and how many ran instead.
function reuseLine(reuse) {
  if (!reuse || !(reuse.reused || reuse.not_reused)) return null;
  var line = "Reused: " + count(reuse.reused) + " of " + count(reuse.of) + " outcome(s) from the reuse store";
  if (reuse.oldest_recorded_at) line += ", the oldest recorded " + reuse.oldest_recorded_at;
  if (list(reuse.commits).length) line += " (commit " + list(reuse.commits).map(function (c) { return String(c).slice(0, 8); }).join(", ") + ")";
  if (reuse.not_reused) line += "; " + count(reuse.not_reused) + " ran and were added to the store";
  return line + (reuse.note ? "; " + reuse.note : "");
}

// What the run spent anew, what it did not spend and why, as the console says it.
function savingsLines(n) {
  if (!n || !(n.stopped_early || list(n.unchanged_skills).length || n.replayed || n.reused)) return [];
  var lines = ["Spent: " + count(n.runs_made) + " run(s) made, " + usd(n.spent_usd) + " new spend (" + String(n.spent_note) + ")"];
  if (n.stopped_early) {
    var by = n.stopped_early_by_skill || {};
    var each = Object.keys(by).map(function (s) { return s + " " + count(by[s]); }).join(", ");
    lines.push(count(n.stopped_early) + " run(s) not spent: stopped early, their skill's question decided (--skill-lens-repeat auto; " + each + ")");
  }
  var unchanged = list(n.unchanged_skills);
  if (unchanged.length) lines.push(unchanged.length + " skill(s) not run: unchanged since " + String(n.unchanged_since) + " (" + unchanged.join(", ") + ")");
  if (n.replayed) lines.push(count(n.replayed) + " outcome(s) replayed from cassettes: " + usd(n.replayed_usd) + ", their recorded cost, paid when they were recorded and not again");
  if (n.reused) lines.push(count(n.reused) + " outcome(s) reused from the store (recorded " + String(n.reused_from) + "): " + usd(n.reused_usd) + ", their recorded cost, not paid again");
  return lines;
}

// --skill-lens-repeat auto:N: each question and its decision, in the gate's words.
function sequentialLines(s) {
  if (!s) return [];
  var head = "Repeats: auto:" + count(s.max_rounds) + ", " + String(s.method) + ", alpha " + String(s.alpha);
  return [head].concat(list(s.questions).map(function (q) { return String(q.text); }));
}

function namesLine(label, names) {
  return list(names).length ? h("p", {}, [h("strong", { text: label + ": " }), names.join(", ")]) : null;
}

function otherSection(report) {
  var children = [
    namesLine("Skipped skills (no eval file)", report.skipped_skills),
    namesLine("Skills with no case left by tags", report.tag_filtered_skills),
    namesLine("Skills with no case left by name", report.case_filtered_skills),
    namesLine("Skills -k/-m deselected", report.deselected_skills),
  ];
  var notRun = list(report.not_run);
  if (notRun.length) {
    children.push(h("h3", { text: "Not run (" + notRun.length + ")" }));
    var listed = notRun.slice(0, 1000); // an aborted run of 50,000: the JSON lists every one
    if (listed.length < notRun.length) children.push(h("p", { class: "muted", text: "The first " + listed.length + "; the JSON report lists every one." }));
    children.push(table(["skill", "case", "runner", "arm", "#repeat"], listed.map(function (n) {
      return h("tr", {}, [cell(n.skill_name || n.nodeid || "?"), cell(n.case_name || ""), cell(n.runner || ""), cell(n.arm), cell(n.repeat_index, true)]);
    })));
  }
  if (report.scripts) children.push(h("h3", { text: "Scripts" }), pre(JSON.stringify(report.scripts, null, 2)));
  list(report.script_notes).forEach(function (note) {
    children.push(h("p", { class: "note", text: "scripts: " + JSON.stringify(note) }));
  });
  if (list(report.products).length) {
    children.push(h("h3", { text: "Products" }), pre(JSON.stringify(report.products, null, 2)));
  }
  children = children.filter(Boolean);
  return children.length ? section("other", "Not run, skipped, scripts and products", children) : null;
}
