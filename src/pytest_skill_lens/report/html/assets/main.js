// main.js: read the data block and lay the page out, top to bottom.

function contents(ids) {
  var names = { totals: "Totals", charts: "Pictures", delta: "Delta", arms: "Arms", multiplicity: "Decisions", portability: "Portability", triggering: "Triggering", outcomes: "Outcomes", other: "Not run and skipped" };
  return h("nav", { "aria-label": "sections" }, h("ul", { class: "toc" }, ids.map(function (id) {
    return h("li", {}, h("a", { href: "#" + id, text: names[id] }));
  })));
}

function render(report) {
  var charts = [].concat(passRateChart(report) || [], costChart(report) || []).filter(Boolean);
  var blocks = [
    totalsSection(report),
    charts.length ? section("charts", "Pictures", charts) : null,
    deltaSection(report),
    armsSection(report),
    multiplicitySection(report),
    portabilitySection(report),
    triggeringSection(report),
    outcomesSection(report),
    otherSection(report),
  ].filter(Boolean);
  var root = document.getElementById("report");
  root.replaceChildren(
    h("header", {}, [h("h1", { text: "skill-lens report" }), runFacts(report),
      contents(blocks.map(function (b) { return b.id; }))]),
    verdictSection(report)
  );
  blocks.forEach(function (b) { root.append(b); });
}

var data = JSON.parse(document.getElementById("skill-lens-data").textContent);
data.outcomes = unpackOutcomes(data);
render(data);
