// evidence.js: what a row shows only when opened (checks with their evidence, output, tool
// calls, hooks, notes) travels compressed, outcomes in blocks (report/html/evidence.py);
// the data block lists each outcome's other values, its keys named once.
// A block is decompressed by the browser's DecompressionStream when one of its rows is
// opened, or every block when a search needs every outcome's text; once. A row and the
// search then read the outcome whole (whole()), as they always did.

var CANNOT_OPEN = "This browser cannot open the compressed evidence of this page (it lacks DecompressionStream, " +
  "which Chromium 80, Firefox 113, Safari 16.4 and later have). The JSON report holds the same.";

var EVIDENCE = { packed: null, outcomes: [], opened: [], rest: [] };

// The outcomes as the rest of the page reads them: objects, of their light values so far.
function unpackOutcomes(report) {
  var packed = report.packed_outcomes;
  if (!packed || !Array.isArray(packed.light_keys)) return list(report.outcomes);
  return list(report.outcomes).map(function (values) {
    var o = {};
    if (Array.isArray(values)) packed.light_keys.forEach(function (key, i) { o[key] = values[i]; });
    return o;
  });
}

function holdEvidence(report, outcomes) {
  var packed = report.packed_outcomes;
  EVIDENCE.packed = packed && Array.isArray(packed.blocks) ? packed : { blocks: [], per_block: 1 };
  EVIDENCE.outcomes = outcomes;
}

function inflate(text) {
  var binary = atob(text), bytes = new Uint8Array(binary.length);
  for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(EVIDENCE.packed.format));
  return new Response(stream).text();
}

// Block n opened and kept, once: resolves null, or a sentence saying why it could not be
// (a block that is not base64, deflate or JSON is said so, never thrown).
function openBlock(n) {
  var packed = EVIDENCE.packed;
  if (n >= packed.blocks.length) return Promise.resolve(null);
  if (typeof DecompressionStream !== "function") return Promise.resolve(CANNOT_OPEN);
  if (!EVIDENCE.opened[n]) {
    EVIDENCE.opened[n] = Promise.resolve(packed.blocks[n]).then(inflate).then(function (text) {
      var start = n * packed.per_block;
      list(JSON.parse(text)).forEach(function (rest, i) { EVIDENCE.rest[start + i] = rest; });
      return null;
    }).catch(function (error) {
      return "The compressed evidence of these outcomes could not be opened (" + error + "). The JSON report holds the same.";
    });
  }
  return EVIDENCE.opened[n];
}

// Outcome index whole, as the JSON report has it, once its block is open (a copy: the
// parts are kept apart, each as compact as JSON.parse made it).
function whole(o, index) {
  var rest = EVIDENCE.rest[index];
  return rest && o && typeof o === "object" ? Object.assign({}, o, rest) : o;
}

function evidenceOf(index) {
  return openBlock(Math.floor(index / EVIDENCE.packed.per_block));
}

function allEvidence() {
  return Promise.all(EVIDENCE.packed.blocks.map(function (_, n) { return openBlock(n); })).then(function (problems) {
    return problems.filter(Boolean)[0] || null;
  });
}
