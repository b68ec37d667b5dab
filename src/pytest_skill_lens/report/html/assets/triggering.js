// triggering.js: offered cases among neighbours (candidate arm): each skill's precision
// and recall, the pairs of skills that take each other's cases, and the grid of the
// skill a case was written for against the skill the agent took (its own when called, else the first). Absent (null)
// when no offered case checked skill_triggered.

function rateText(iv, hits, of) {
  if (!iv || !isNum(iv.estimate)) return "none counted";
  return pct(iv.estimate) + " (" + hits + "/" + of + ")" + intervalSpan(iv);
}

function triggeringSection(report) {
  var t = report.triggering;
  if (!t) return null;
  var labels = list(t.labels);
  var runs = {};
  list(t.cells).forEach(function (c) { runs[c.written_for + "\u0000" + c.took] = c.runs; });
  var children = [
    h("p", { class: "muted", text: "Candidate runs of offered cases that check skill_triggered; errored runs say nothing about the choice and are left out. Rows: the skill a case was written for (none: a negative control); columns: the skill the agent took: the intended one when it was called at all, else the first called (none: no skill); a skill called beside it counts against that skill's precision." }),
    table(["skill", "precision [95% interval]", "recall [95% interval]"], list(t.skills).map(function (r) {
      return h("tr", {}, [cell(r.skill_name), cell(rateText(r.precision, r.hits, r.taken + (r.also || 0)) +
        (r.also ? "; called beside the skill taken in " + r.also : "")),
        cell(rateText(r.recall, r.hits, r.written))]);
    }), "compact"),
  ];
  var pairs = list(t.pairs);
  if (pairs.length) {
    children.push(h("h3", { text: "Descriptions that take each other's cases" }));
    children.push(h("ul", { class: "confused" }, pairs.map(function (p) {
      return h("li", { text: p.first + " \u2194 " + p.second + ": " + p.runs + " run(s); " + p.second + " took " +
        p.first_taken_by_second + " written for " + p.first + ", " + p.first + " took " +
        p.second_taken_by_first + " written for " + p.second });
    })));
  }
  var beside = list(t.also);
  if (beside.length) {
    children.push(h("h3", { text: "Called beside the skill taken (each a false positive of the skill called)" }));
    children.push(h("ul", { class: "beside" }, beside.map(function (a) {
      return h("li", { text: a.called + " in " + a.runs + " run(s) written for " + a.written_for });
    })));
  }
  children.push(table(["written for \u2193 / took \u2192"].concat(labels), labels.map(function (row) {
    return h("tr", {}, [cell(row)].concat(labels.map(function (col) {
      return cell(String(runs[row + "\u0000" + col] || 0), true);
    })));
  }), "triggering-grid"));
  return section("triggering", "Triggering among neighbours", children);
}
