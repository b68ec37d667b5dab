// arms.js: several baseline arms side by side (the report's "arms"; null for one arm):
// each arm's figures as the delta section draws them, then one row per skill and runner
// with a column per arm, in the words of report/arms_view.py.

// Always signed, "+0%" too, as signed_percent writes a delta.
function plusPct(value) {
  if (!isNum(value)) return "n/a";
  return (value < 0 ? "-" : "+") + Math.abs(Math.round(value * 100)) + "%";
}

function armCellText(a) {
  if (!a) return "no baseline ran";
  if (!isNum(a.pass_rate_delta) || !isNum(a.pass_rate_baseline)) return "no comparable case";
  var iv = a.pass_rate_delta_interval;
  var text = plusPct(a.pass_rate_delta);
  if (iv && isNum(iv.low)) text += " [" + plusPct(iv.low) + ", " + plusPct(iv.high) + "]";
  return text + " (" + pct(a.pass_rate_baseline) + ")";
}

function armsSection(report) {
  var arms = report.arms;
  if (!arms) return null;
  var kinds = list(arms.kinds);
  var children = [h("p", { class: "muted", text: "Each baseline arm is paired with the candidate on its own, as a run of that arm alone would be; a row weighs each comparable case once." })];
  list(arms.deltas).forEach(function (d) {
    children = children.concat(figuresBlock("Delta vs baseline (" + d.baseline_kind + ")", d));
  });
  var rows = list(arms.rows).map(function (r) {
    var byKind = {};
    list(r.by_arm).forEach(function (a) { byKind[a.baseline_kind] = a; });
    return h("tr", {}, [cell(r.skill_name), cell(r.runner), cell(pct(r.pass_rate_candidate), true)]
      .concat(kinds.map(function (k) { return cell(armCellText(byKind[k]), true); })));
  });
  children.push(h("h3", { text: "Side by side (candidate - arm, pass-rate delta [95% interval], the arm's own rate)" }));
  children.push(table(["skill", "runner", "candidate"].concat(kinds.map(function (k) { return "vs " + k; })), rows, "arms-grid"));
  var gate = (report.run && report.run.gate_settings) || {};
  if (isNum(gate.min_delta)) {
    children.push(h("p", { text: "The gate holds min_delta " + plusPct(gate.min_delta) + " against each baseline arm (" + kinds.join(", ") + "): every arm must clear it." }));
  }
  return section("arms", "Baseline arms side by side", children);
}
