// portability.js: each case's verdict under every runner (candidate arm), with each
// runner's pass rate, the paired differences and the cases that pass in one and fail in
// another. Absent (null) for a run of one runner. A cell's verdict is a word; colour repeats it.

var VERDICT_WORDS = {
  passed: "passed", failed: "failed", mixed: "mixed", errored: "errored",
  not_evaluated: "not evaluated", not_run: "not run", not_selected: "not selected",
};

function intervalSpan(iv, signedScale) {
  if (!iv || !isNum(iv.low)) return "";
  var f = signedScale ? signedPct : pct;
  return " [" + f(iv.low) + ", " + f(iv.high) + "]";
}

function verdictCell(c) {
  var word = VERDICT_WORDS[c.verdict] || String(c.verdict);
  var judged = (c.passed || 0) + (c.failed || 0);
  var text = word;
  if (judged && c.verdict !== "not_run") text += " " + c.passed + "/" + judged;
  var cls = ["passed", "failed"].indexOf(c.verdict) >= 0 ? "status " + c.verdict : "status";
  return h("td", { "data-verdict": c.verdict }, h("span", { class: cls, text: text }));
}

function missingText(missing) {
  var parts = [];
  Object.keys(missing || {}).forEach(function (key) {
    if (missing[key]) parts.push(missing[key] + " " + (VERDICT_WORDS[key] || key));
  });
  return parts.join(", ") || "—";
}

function portabilitySection(report) {
  var m = report.portability;
  if (!m) return null;
  var runners = list(m.runners);
  var names = runners.map(function (r) { return r.runner; });
  var children = [
    h("p", { class: "muted", text: "Candidate arm only. Errored, not evaluated, not run and not selected cells are never counted as a pass or a fail." }),
    table(["runner", "#cases", "pass rate [95% interval]", "confidence", "no verdict"], runners.map(function (r) {
      return h("tr", {}, [cell(r.runner), cell(count(r.cases), true),
        cell(isNum(r.pass_rate) ? pct(r.pass_rate) + intervalSpan(r.interval) : "—"),
        cell(r.confidence || "none"), cell(missingText(r.without_verdict))]);
    }), "compact"),
  ];
  var pairs = list(m.pairs);
  if (pairs.length) {
    children.push(h("h3", { text: m.pairing === "every pair" ? "Paired differences" : "Paired differences, against " + names[0] }));
    children.push(table(["runners", "#paired cases", "pass rates", "difference [95% interval]", "confidence", "passed only under each"], pairs.map(function (p) {
      var has = isNum(p.difference);
      return h("tr", {}, [cell(p.first + " − " + p.second), cell(count(p.cases), true),
        cell(has ? pct(p.pass_rate_first) + " vs " + pct(p.pass_rate_second) : "—"),
        cell(has ? signedPct(p.difference) + intervalSpan(p.interval, true) : "no case with a verdict under both"),
        cell(p.confidence || "none"), cell(p.first_only + " / " + p.second_only)]);
    }), "compact"));
  }
  var divergent = list(m.divergent);
  if (divergent.length) {
    children.push(h("h3", { text: "Pass in one runner, fail in another (" + divergent.length + ")" }));
    children.push(h("ul", { class: "divergent" }, divergent.map(function (d) {
      return h("li", { text: d.skill_name + " :: " + d.case_name + ": passed under " + list(d.passed_in).join(", ") +
        "; failed under " + list(d.failed_in).join(", ") });
    })));
  }
  children.push(h("h3", { text: "Per case" }));
  children.push(table(["case"].concat(names), list(m.cases).map(function (c) {
    return h("tr", {}, [cell(c.skill_name + " :: " + c.case_name)].concat(list(c.cells).map(verdictCell)));
  }), "portability-grid"));
  return section("portability", "Portability across runners", children);
}
