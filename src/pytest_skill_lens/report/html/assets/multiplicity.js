// multiplicity.js: the gate's interval decisions, raw and after Holm's correction, in the
// words of report/multiplicity_view.py (terminal and Markdown). Absent when no criterion
// asked for a confidence level (the report's "multiplicity" list is empty).

function levelText(level) {
  return isNum(level) ? String(Number((level * 100).toPrecision(6))) + "%" : "n/a";
}

function decisionSubject(family, d) {
  if (family.criterion === "per_skill_min_confidence") return "skill '" + d.skill + "' pass rate";
  var what = d.arm ? "pass-rate delta vs " + d.arm : "pass-rate delta";
  return d.runner ? what + " under runner '" + d.runner + "'" : what;
}

// A delta always signed, "+0%" too, as the terminal writes it (signed_percent).
function decisionFigure(family, value) {
  return family.criterion === "per_skill_min_confidence" ? pct(value) : plusPct(value);
}

function familyTitle(family) {
  var how = family.method === "holm" ? "Holm's step-down correction" : "no correction (multiplicity = \"none\")";
  return "Interval decisions of " + family.criterion + " at " + levelText(family.level) + " confidence: " +
    list(family.decisions).length + " decision(s), one-sided error " +
    (isNum(family.alpha) ? family.alpha.toFixed(4) : "n/a") + " each, " + how;
}

function pValue(value) {
  return isNum(value) ? value.toFixed(4) : "n/a";
}

function familyBlock(family) {
  var holm = family.method === "holm";
  var decisions = list(family.decisions);
  var rows = decisions.map(function (d) {
    return h("tr", {}, [
      cell(decisionSubject(family, d)), cell(decisionFigure(family, d.estimate), true),
      cell(decisionFigure(family, d.bar), true), cell(pValue(d.p_value), true),
      cell(d.raw_holds ? "shown" : "not shown"),
      cell(holm ? pValue(d.adjusted_p_value) : "\u2014", true),
      cell(holm ? (d.adjusted_holds ? "shown" : "not shown") : "\u2014"),
    ]);
  });
  var changed = decisions.filter(function (d) { return d.raw_holds !== d.adjusted_holds; }).length;
  return [
    h("h3", { text: familyTitle(family) }),
    table(["decision", "#estimate", "#bar", "#p", "raw", "#Holm-adjusted p", "adjusted"], rows, "decisions"),
    changed ? h("p", { text: changed + " decision(s) shown alone are not shown after the correction: the gate reads the adjusted ones." }) : null,
  ];
}

function multiplicitySection(report) {
  var families = list(report.multiplicity);
  if (!families.length) return null;
  var children = [h("p", { class: "muted", text: "Each decision asks whether an interval clears its bar; a family of several is corrected together when multiplicity = \"holm\", and the gate reads the adjusted decisions." })];
  families.forEach(function (family) { children = children.concat(familyBlock(family)); });
  return section("multiplicity", "Interval decisions", children);
}
