// charts.js: small inline SVG pictures. Each bar and whisker also carries its figure as
// text, so nothing is told by length or colour alone.

var LABEL_CHARS = 56; // a longer label is cut, and shown whole in its tooltip

function labelWidth(labels) {
  var longest = labels.reduce(function (m, l) { return Math.max(m, String(l).length); }, 0);
  return Math.max(80, Math.min(longest, LABEL_CHARS) * 7 + 16);
}

function label(x, y, text) {
  var full = String(text);
  var shown = full.length > LABEL_CHARS ? full.slice(0, LABEL_CHARS - 1) + "…" : full;
  return s("text", { x: x, y: y, "text-anchor": "end" }, [shown, s("title", { text: full })]);
}

function svgFrame(title, width, height, children) {
  return s("svg", { viewBox: "0 0 " + width + " " + height, width: width, height: height, role: "img", "aria-label": title },
    [s("title", { text: title })].concat(children));
}

// rows: [{label, value, text, cls}]; max: the value of a full bar; goal: a dashed line.
function barChart(title, rows, max, goal) {
  var left = labelWidth(rows.map(function (r) { return r.label; }));
  var barWidth = 300, rowHeight = 22, width = left + barWidth + 150;
  var height = rows.length * rowHeight + 8;
  var parts = [];
  rows.forEach(function (row, i) {
    var y = 4 + i * rowHeight;
    var share = max > 0 && isNum(row.value) ? Math.max(0, Math.min(1, row.value / max)) : 0;
    parts.push(label(left - 8, y + 15, row.label));
    parts.push(s("rect", { class: "track", x: left, y: y + 3, width: barWidth, height: rowHeight - 6 }));
    parts.push(s("rect", { class: "bar " + (row.cls || ""), x: left, y: y + 3, width: (share * barWidth).toFixed(1), height: rowHeight - 6 }));
    parts.push(s("text", { x: left + barWidth + 8, y: y + 15, text: row.text }));
  });
  if (isNum(goal) && max > 0) {
    var x = (left + Math.min(1, goal / max) * barWidth).toFixed(1);
    parts.push(s("line", { class: "goal", x1: x, x2: x, y1: 0, y2: height }, [s("title", { text: "minimum " + pct(goal) })]));
  }
  return svgFrame(title, width, height, parts);
}

function passRateChart(report) {
  var rates = (report.summary || {}).pass_rate_by_skill || {};
  var names = Object.keys(rates);
  if (!names.length) return null;
  var rows = names.map(function (name) { return { label: name, value: rates[name], text: pct(rates[name]) }; });
  var goal = ((report.run || {}).gate_settings || {}).min_pass_rate;
  var chart = barChart("Pass rate per skill (candidate arm)", rows, 1, goal);
  var caption = isNum(goal) ? "The dashed line is the gate's minimum pass rate, " + pct(goal) + "." : "";
  return [h("h3", { text: "Pass rate per skill (candidate arm)" }), chart, caption ? h("p", { class: "muted", text: caption }) : null];
}

function costPerCase(outcomes) {
  var keys = [], groups = {};
  outcomes.forEach(function (o) {
    var key = JSON.stringify([o.skill_name, o.case_name, o.runner, o.arm]);
    if (!groups[key]) { groups[key] = { item: o, cost: 0, unpriced: false }; keys.push(key); }
    groups[key].cost += (o.cost_usd || 0) + (o.retry_cost_usd || 0);
    groups[key].unpriced = groups[key].unpriced || Boolean(o.cost_note);
  });
  return keys.map(function (key) { return groups[key]; });
}

var COST_BARS = 40; // past this, the costliest cases: a chart of 50,000 bars says nothing

function costChart(report) {
  var all = costPerCase(list(report.outcomes));
  if (!all.length) return null;
  var groups = all.length > COST_BARS ? all.slice().sort(function (a, b) { return b.cost - a.cost; }).slice(0, COST_BARS) : all;
  var max = groups.reduce(function (m, g) { return Math.max(m, g.cost); }, 0);
  var rows = groups.map(function (g) {
    var arm = g.item.arm === "baseline" ? " [baseline]" : "";
    return {
      label: g.item.skill_name + " :: " + g.item.case_name + arm,
      value: g.cost,
      text: usd(g.cost) + (g.unpriced ? " (unpriced)" : "") + " · " + g.item.runner,
      cls: g.item.arm === "baseline" ? "baseline" : "",
    };
  });
  var title = "Cost per case (runs and retries, every repetition)";
  if (groups.length < all.length) title += ": the " + groups.length + " costliest of " + all.length;
  return [h("h3", { text: title }), barChart("Cost per case", rows, max || 1, null)];
}

// rows: [{label, interval: {low, high, estimate}, signedScale}]
function intervalChart(title, rows) {
  var left = labelWidth(rows.map(function (r) { return r.label; }));
  var track = 300, rowHeight = 40, width = left + track + 170, height = rows.length * rowHeight + 10;
  var parts = [];
  rows.forEach(function (row, i) {
    var y = 6 + i * rowHeight, mid = y + rowHeight / 2 - 2;
    var lo = row.signedScale ? -1 : 0;
    var at = function (v) { return (left + ((Math.max(lo, Math.min(1, v)) - lo) / (1 - lo)) * track).toFixed(1); };
    var format = row.signedScale ? signedPct : pct;
    parts.push(label(left - 8, mid + 4, row.label));
    parts.push(s("line", { class: "axis", x1: left, x2: left + track, y1: mid, y2: mid }));
    parts.push(s("text", { x: left, y: mid + 17, "font-size": 10, text: format(lo) }));
    parts.push(s("text", { x: left + track, y: mid + 17, "text-anchor": "end", "font-size": 10, text: format(1) }));
    if (row.signedScale) parts.push(s("line", { class: "axis", x1: at(0), x2: at(0), y1: mid - 8, y2: mid + 8 }));
    var iv = row.interval;
    var text = "no interval";
    if (iv && isNum(iv.low) && isNum(iv.high)) {
      parts.push(s("line", { class: "whisker", x1: at(iv.low), x2: at(iv.high), y1: mid, y2: mid }));
      parts.push(s("line", { class: "whisker", x1: at(iv.low), x2: at(iv.low), y1: mid - 6, y2: mid + 6 }));
      parts.push(s("line", { class: "whisker", x1: at(iv.high), x2: at(iv.high), y1: mid - 6, y2: mid + 6 }));
      text = format(iv.estimate) + "  [" + format(iv.low) + ", " + format(iv.high) + "]";
    }
    if (iv && isNum(iv.estimate)) parts.push(s("circle", { class: "dot", cx: at(iv.estimate), cy: mid, r: 4.5 }));
    parts.push(s("text", { x: left + track + 10, y: mid + 4, text: text }));
  });
  return svgFrame(title, width, height, parts);
}
