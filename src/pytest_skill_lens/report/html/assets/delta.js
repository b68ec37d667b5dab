// delta.js: the candidate-vs-baseline comparison, its intervals drawn and written out.

function figuresBlock(title, f) {
  var iv = f.intervals || {};
  var rows = [
    { label: "baseline", interval: iv.baseline || { estimate: f.pass_rate_baseline } },
    { label: "candidate", interval: iv.candidate || { estimate: f.pass_rate_candidate } },
    { label: "delta", interval: iv.delta || { estimate: f.pass_rate_delta }, signedScale: true },
  ];
  var level = iv.delta && isNum(iv.delta.level) ? pct(iv.delta.level) : "95%";
  var method = iv.delta && iv.delta.method ? " (" + iv.delta.method + ")" : "";
  return [
    h("h3", { text: title }),
    h("p", { text: f.comparable_cases + " case(s) comparable. Pass rate: baseline " + pct(f.pass_rate_baseline) +
      " → candidate " + pct(f.pass_rate_candidate) + ", delta " + signedPct(f.pass_rate_delta) + " (higher is better)." }),
    intervalChart("Pass rates with their " + level + " intervals", rows),
    h("p", { class: "muted", text: "Dots are the estimates, whiskers the " + level + " intervals" + method + "." }),
    h("p", { text: "Confidence in the delta: " + (f.confidence || "n/a") + "." }),
    h("p", { text: "Per run: tokens " + signed(f.tokens_delta, count) + " | cost " + signedUsd(f.cost_usd_delta) +
      " | latency " + signed(f.latency_ms_delta, ms) + " (negative is better)." }),
  ];
}

function armCell(arm) {
  if (!arm || !arm.runs) return cell("not run");
  var text = arm.passed + "/" + (arm.runs - arm.errored) + " " + pct(arm.pass_rate);
  if (arm.errored) text += " (+" + arm.errored + " errored)";
  if (arm.interval && isNum(arm.interval.low)) text += " [" + pct(arm.interval.low) + ", " + pct(arm.interval.high) + "]";
  var ks = list(arm.k_estimates).filter(function (k) { return k.k > 1; });
  if (ks.length) {
    var last = ks[ks.length - 1];
    text += "; pass@" + last.k + " " + pct(last.pass_at_k) + ", pass^" + last.k + " " + pct(last.pass_hat_k);
  }
  return cell(text);
}

function caseTable(cases) {
  return table(["skill", "case", "runner", "candidate", "baseline", "#delta", "compared"], cases.map(function (c) {
    var both = c.baseline && isNum(c.candidate.pass_rate) && isNum(c.baseline.pass_rate);
    var compared = c.comparable ? "yes" : "excluded: " + (c.exclusion_reason || "not comparable");
    if (c.high_variance) compared += "; high variance";
    if (list(c.low_signal).length) compared += "; low-signal: " + c.low_signal.join(", ");
    return h("tr", {}, [
      cell(c.skill_name), cell(c.case_name), cell(c.runner), armCell(c.candidate), armCell(c.baseline),
      cell(both && c.comparable ? signedPct(c.candidate.pass_rate - c.baseline.pass_rate) : "n/a", true),
      cell(compared),
    ]);
  }));
}

function deltaSection(report) {
  var delta = report.delta;
  var notes = list(report.baseline_notes);
  var sources = list(report.baseline_sources);
  var kind = (report.run || {}).baseline_kind;
  if (!delta && !kind && !notes.length) return null;
  var children = [];
  if (!delta) {
    children.push(h("p", { text: "No baseline arm ran, so there is no delta." }));
  } else {
    children = children.concat(figuresBlock("All runners", delta));
    var runners = list(delta.runners);
    if (runners.length > 1) {
      runners.forEach(function (r) { children = children.concat(figuresBlock("Runner " + r.runner, r)); });
    }
    children.push(h("h3", { text: "Per case" }), caseTable(list(delta.cases)));
    var low = list(delta.low_signal);
    if (low.length) {
      children.push(h("h3", { text: "Low-signal checks (held in every repetition of both arms)" }));
      var byCase = {}, order = [];
      low.forEach(function (c) {
        var key = caseLabel(c);
        if (!byCase[key]) { byCase[key] = []; order.push(key); }
        byCase[key].push(c.check_id);
      });
      children.push(h("ul", {}, order.map(function (key) {
        return h("li", { text: key + ": " + byCase[key].join(", ") });
      })));
    }
    var high = list(delta.high_variance);
    if (high.length) {
      children.push(h("h3", { text: "High-variance cases" }));
      children.push(h("ul", {}, high.map(function (c) {
        return h("li", { text: caseLabel(c) + ", " + c.arm + ": pass rate " + pct(c.pass_rate) + ", stddev " + (isNum(c.stddev) ? c.stddev.toFixed(2) : "n/a") });
      })));
    }
    children.push(h("p", { class: "muted", text: "Low-signal and high-variance flags are advice: they never change the exit code." }));
    list(delta.notes).forEach(function (n) { children.push(h("p", { class: "note", text: n })); });
  }
  if (notes.length) {
    children.push(h("h3", { text: "Baseline notes" }));
    children.push(h("ul", {}, notes.map(function (n) {
      var where = n.case_name ? n.skill_name + " :: " + n.case_name : n.skill_name;
      return h("li", { text: where + ": baseline " + n.kind + " — " + n.reason });
    })));
  }
  if (sources.length) {
    children.push(h("h3", { text: "Baseline sources" }));
    children.push(table(["skill", "commit", "path", "version"], sources.map(function (src) {
      return h("tr", {}, [cell(src.skill_name), cell(h("code", { text: src.commit || "" })), cell(src.path || ""), cell(src.version || "")]);
    })));
  }
  var title = "Delta vs baseline" + (delta && delta.baseline_kind ? " (" + delta.baseline_kind + ")" : kind ? " (" + kind + ")" : "");
  return section("delta", title, children);
}
