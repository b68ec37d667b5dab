// core.js: building nodes and formatting figures. Every string from the report enters
// the page through textContent (text nodes) or setAttribute on inert attributes, never
// through an HTML parser, so no output can become markup.

var SVG_NS = "http://www.w3.org/2000/svg";

function build(node, attrs, children) {
  Object.keys(attrs || {}).forEach(function (key) {
    var value = attrs[key];
    if (value === null || value === undefined || value === false) return;
    if (key === "text") node.textContent = String(value);
    else if (key === "class") node.setAttribute("class", value);
    else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  });
  [].concat(children === undefined ? [] : children).forEach(function (child) {
    if (child === null || child === undefined || child === false) return;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  });
  return node;
}

function h(tag, attrs, children) {
  return build(document.createElement(tag), attrs, children);
}

function s(tag, attrs, children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

function isNum(value) {
  return typeof value === "number" && isFinite(value);
}

function pct(value) {
  return isNum(value) ? Math.round(value * 100) + "%" : "n/a";
}

function signedPct(value) {
  if (!isNum(value)) return "n/a";
  var rounded = Math.round(value * 100);
  return (rounded > 0 ? "+" : "") + rounded + "%";
}

function usd(value) {
  if (!isNum(value)) return "n/a";
  if (value === 0) return "$0";
  var size = Math.abs(value);
  var text = size >= 0.01 ? size.toFixed(4) : size.toPrecision(2);
  return (value < 0 ? "-$" : "$") + text;
}

function signedUsd(value) {
  return isNum(value) && value > 0 ? "+" + usd(value) : usd(value);
}

function ms(value) {
  if (!isNum(value)) return "n/a";
  if (Math.abs(value) >= 1000) return (value / 1000).toFixed(2) + " s";
  return (Math.abs(value) >= 10 ? value.toFixed(0) : value.toFixed(1)) + " ms";
}

function count(value) {
  return isNum(value) ? Math.round(value).toLocaleString("en-US") : "n/a";
}

function signed(value, format) {
  if (!isNum(value)) return "n/a";
  return (value > 0 ? "+" : "") + format(value);
}

function list(value) {
  return Array.isArray(value) ? value : [];
}

function statusWord(status, arm) {
  var word = status === "passed" ? "passed" : String(status).toUpperCase();
  return arm === "baseline" ? "baseline " + word : word;
}

function statusBadge(status, arm) {
  var cls = "status " + (["passed", "failed", "errored"].indexOf(status) >= 0 ? status : "");
  if (arm === "baseline") cls += " baseline";
  return h("span", { class: cls, text: statusWord(status, arm) });
}

function table(headers, rows, cls) {
  var head = h("tr", {}, headers.map(function (label) {
    var numeric = label.charAt(0) === "#";
    return h("th", { scope: "col", class: numeric ? "num" : null, text: numeric ? label.slice(1) : label });
  }));
  return h("table", { class: cls || null }, [h("thead", {}, head), h("tbody", {}, rows)]);
}

function cell(content, numeric) {
  return h("td", { class: numeric ? "num" : null }, content);
}

function section(id, title, children) {
  return h("section", { id: id, "aria-labelledby": id + "-title" },
    [h("h2", { id: id + "-title", text: title })].concat(children));
}

function definitions(pairs) {
  var items = [];
  pairs.forEach(function (pair) {
    if (pair[1] === null || pair[1] === undefined || pair[1] === "") return;
    items.push(h("dt", { text: pair[0] }), h("dd", {}, pair[1]));
  });
  return items.length ? h("dl", { class: "detail-grid" }, items) : null;
}

function pre(text) {
  return h("pre", { text: text });
}

function caseLabel(item) {
  return item.skill_name + " :: " + item.case_name + " (" + item.runner + ")";
}
