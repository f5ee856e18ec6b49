// @ts-check
// The sm90 attention kernel's shared-memory budget as a dial (figure `sm90-budget`).
// `smem` mirrors reader/extract/tokamax_facts.py's `smem_bytes` line for line; its parameters come
// from the page (`data-sm90-budget`, written by reader/render/figures_sm90.py from the pinned source).
// tests/test_sm90_dial.py runs this file with node and compares every number with the Python model.
(function () {
  "use strict";

  // All sizes are non-negative integers far below 2**53: `%` and `/` below are exact.
  function align(x, a) {
    var r = x % a;
    return r === 0 ? x : x + (a - r);
  }

  function floorDiv(x, y) {
    return (x - (x % y)) / y;
  }

  function sum(xs) {
    return xs.reduce(function (s, x) { return s + x; }, 0);
  }

  // Refs laid out one after another, each starting on `smem_alignment` (`_group`).
  function group(p, sizes) {
    return sizes.reduce(function (size, n) { return align(size, p.smem_alignment) + n; }, 0);
  }

  function paddedHeadDim(p, headDim) {
    return align(headDim, floorDiv(8 * p.min_swizzle, 8 * p.element_bytes));
  }

  // Each top-level scratch allocation of `_get_scratch_types` (`_scratch_bytes`), named.
  function allocations(p, t, headDim, residuals) {
    var b = p.element_bytes, d = paddedHeadDim(p, headDim);
    var epiD = floorDiv(p.epi_tile_bits, 8 * b);
    if (d % epiD !== 0) epiD = d;
    var slots = Math.min(p.max_epi_slots, floorDiv(t.block_q, p.epi_tile_q) * floorDiv(d, epiD));
    var q = p.compute_wgs * t.block_q * d * b;
    var kv = t.num_stages * t.block_kv * d * b;
    var o = p.compute_wgs * slots * p.epi_tile_q * epiD * b;
    var row = p.compute_wgs * t.block_q * 4;  // `l_scratch`, `m_scratch`: f32
    var rows = residuals ? [{name: "l", bytes: row}, {name: "m", bytes: row}] : [];
    var out;
    if (t.persistent) {
      out = [{name: "q", bytes: q}, {name: "k", bytes: kv}, {name: "o", bytes: o}].concat(rows);
    } else {
      var outSide = [{name: "o", bytes: o}].concat(rows);
      var parts = [
        {name: "q, k", bytes: group(p, [q, kv])},
        {name: outSide.map(function (r) { return r.name; }).join(", "),
         bytes: group(p, outSide.map(function (r) { return r.bytes; }))}];
      out = [{name: "RefUnion(q, k | " + parts[1].name + ")",
              bytes: Math.max(parts[0].bytes, parts[1].bytes), parts: parts}];
    }
    return out.concat([{name: "v", bytes: kv}]);
  }

  function barrierCount(p, t) {
    return p.fixed_barriers + p.stage_barriers * t.num_stages;
  }

  // What the kernel allocates for tiling `t` (`smem_bytes`), and tokamax's estimate of it
  // (`estimate_bytes`: the same buffers without residuals or the reduction scratch).
  function smem(p, t, headDim, residuals) {
    var a = p.smem_alignment;
    var buffers = allocations(p, t, headDim, !!residuals);
    buffers.forEach(function (x) { x.aligned = align(x.bytes, a); });
    var barriers = p.mbarrier_bytes * barrierCount(p, t);
    var reduction = align(p.kernel_reduction_scratch_bytes, a);
    var plain = residuals ? allocations(p, t, headDim, false) : buffers;
    var total = sum(buffers.map(function (x) { return x.aligned; })) + reduction + barriers;
    return {
      padded_head_dim: paddedHeadDim(p, headDim),
      buffers: buffers,
      reduction: reduction,
      barrier_count: barrierCount(p, t),
      barriers: barriers,
      total: total,
      estimate: sum(plain.map(function (x) { return align(x.bytes, a); })) + barriers,
      fits: total <= p.limit_bytes
    };
  }

  // The config `get_heuristics_config` returns (`heuristic_tiling`).
  function heuristic(p, headDim) {
    var ladder = p.heuristic;
    for (var i = 0; i < ladder.length - 1; i++) {
      if (smem(p, ladder[i], headDim, false).estimate < p.budget_bytes) return ladder[i];
    }
    return ladder[ladder.length - 1];
  }

  var model = {align: align, allocations: allocations, smem: smem, heuristic: heuristic};
  if (typeof module === "object" && module.exports) {
    module.exports = model;
    return;
  }

  // ---- The page: controls, breakdown, bar. ----

  var CONTROLS = [
    {key: "block_q", values: "block_qs", label: "block_q", help: "query rows per compute warpgroup"},
    {key: "block_kv", values: "block_kvs", label: "block_kv", help: "keys per pipeline stage"},
    {key: "num_stages", values: "stages", label: "num_stages", help: "K/V pipeline depth"},
    {key: "head_dim", values: "head_dims", label: "head_dim", help: "of tokamax's FA3 specs"}
  ];

  function fmt(n) {
    return n.toLocaleString("en-US");
  }

  function kib(n) {
    return (n / 1024).toFixed(1) + " KiB";
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function tilingText(t) {
    return t.block_q + " × " + t.block_kv + " × " + t.num_stages + (t.persistent ? " persistent" : "");
  }

  function slider(root, c, p, state, update) {
    var id = root.id + "-" + c.key, values = p[c.values];
    var wrap = el("div", {"class": "rd-dial-control"});
    var input = el("input", {type: "range", id: id, min: "0", max: String(values.length - 1),
                             step: "1", "aria-describedby": id + "-help"});
    var out = el("output", {"for": id});
    wrap.appendChild(el("label", {"for": id}, c.label));
    wrap.appendChild(input);
    wrap.appendChild(out);
    wrap.appendChild(el("span", {id: id + "-help", "class": "rd-dial-help"},
                        c.help + ": " + values.join(", ")));
    input.addEventListener("input", function () {
      state[c.key] = values[Number(input.value)];
      update();
    });
    return {node: wrap, show: function () {
      input.value = String(values.indexOf(state[c.key]));
      input.setAttribute("aria-valuetext", String(state[c.key]));
      out.textContent = String(state[c.key]);
    }};
  }

  function checkbox(root, state, update) {
    var id = root.id + "-persistent";
    var wrap = el("div", {"class": "rd-dial-control"});
    var input = el("input", {type: "checkbox", id: id});
    input.setAttribute("aria-describedby", id + "-help");
    wrap.appendChild(el("label", {"for": id}, "persistent"));
    wrap.appendChild(input);
    wrap.appendChild(el("span", {id: id + "-help", "class": "rd-dial-help"},
                        "q, k and o apart; unchecked, q and k share a RefUnion with o"));
    input.addEventListener("change", function () {
      state.persistent = input.checked;
      update();
    });
    return {node: wrap, show: function () { input.checked = state.persistent; }};
  }

  function row(cells, cls) {
    var tr = el("tr", cls ? {"class": cls} : {});
    cells.forEach(function (c, i) { tr.appendChild(el(i ? "td" : "th", i ? {} : {scope: "row"}, c)); });
    return tr;
  }

  function breakdown(tbody, r, p) {
    tbody.textContent = "";
    r.buffers.forEach(function (b, i) {
      tbody.appendChild(row([b.name, fmt(b.bytes), fmt(b.aligned)], "rd-dial-seg" + (i % 6)));
      (b.parts || []).forEach(function (part) {
        tbody.appendChild(row(["  group " + part.name, fmt(part.bytes), ""], "rd-dial-part"));
      });
    });
    tbody.appendChild(row(["reduction scratch", fmt(p.kernel_reduction_scratch_bytes), fmt(r.reduction)]));
    tbody.appendChild(row([r.barrier_count + " mbarriers × " + p.mbarrier_bytes + " B", fmt(r.barriers),
                           fmt(r.barriers)]));
    tbody.appendChild(row(["total", "", fmt(r.total)], "rd-dial-total"));
  }

  function bar(node, r, p) {
    var scale = Math.max(r.total, p.limit_bytes);
    node.textContent = "";
    r.buffers.forEach(function (b, i) {
      var seg = el("span", {"class": "rd-dial-seg rd-dial-seg" + (i % 6), title: b.name + ": " + fmt(b.aligned) + " B"});
      seg.style.width = (100 * b.aligned / scale) + "%";
      node.appendChild(seg);
    });
    var limit = el("span", {"class": "rd-dial-limit", title: "per-block limit: " + fmt(p.limit_bytes) + " B"});
    limit.appendChild(el("span", {"class": "rd-dial-limit-label"}, "per-block limit " + kib(p.limit_bytes)));
    limit.style.left = (100 * p.limit_bytes / scale) + "%";
    node.appendChild(limit);
    node.setAttribute("aria-label", "allocated " + kib(r.total) + " of a " + kib(p.limit_bytes) + " limit");
  }

  function stopsFitting(p, state) {
    var cells = p.stages.map(function (s) {
      var t = {block_q: state.block_q, block_kv: state.block_kv, num_stages: s, persistent: state.persistent};
      return {stages: s, r: smem(p, t, state.head_dim, false)};
    });
    var fitting = cells.filter(function (c) { return c.r.fits; });
    var last = fitting.length ? fitting[fitting.length - 1].stages : null;
    var each = cells.map(function (c) { return c.stages + " " + (c.r.fits ? "✓" : "✗") + " " + kib(c.r.total); });
    var lead = "At head_dim " + state.head_dim + " with block_q " + state.block_q + ", block_kv " +
               state.block_kv + (state.persistent ? ", persistent" : "") + ": ";
    return lead + (last === null ? "no pipeline depth fits" : "up to num_stages " + last + " fits") +
           " (" + each.join(" · ") + ").";
  }

  function mount(root) {
    var p = JSON.parse(root.getAttribute("data-sm90-budget"));
    var state = Object.assign({head_dim: p.initial_head_dim}, heuristic(p, p.initial_head_dim));
    var ui = el("div", {"class": "rd-dial-ui"});
    var form = el("fieldset", {"class": "rd-dial-controls"});
    form.appendChild(el("legend", {}, "Tiling"));
    var controls = CONTROLS.map(function (c) { return slider(root, c, p, state, update); });
    controls.push(checkbox(root, state, update));
    controls.forEach(function (c) { form.appendChild(c.node); });
    var reset = el("button", {type: "button", "class": "md-button rd-dial-reset"}, "tokamax's heuristic for this head_dim");
    reset.addEventListener("click", function () {
      Object.assign(state, heuristic(p, state.head_dim));
      update();
    });
    form.appendChild(reset);
    var summary = el("p", {"class": "rd-dial-summary", "aria-live": "polite"});
    var tuner = el("p", {"class": "rd-dial-tuner"});
    var meter = el("div", {"class": "rd-dial-bar", role: "img"});
    var stops = el("p", {"class": "rd-dial-stops"});
    var table = el("table", {"class": "rd-dial-table"});
    table.appendChild(el("caption", {}, "Scratch buffers, in bytes"));
    var head = el("thead");
    var headRow = el("tr");
    ["buffer", "size", "allocated (each rounded up to " + fmt(p.smem_alignment) + ")"].forEach(function (c) {
      headRow.appendChild(el("th", {scope: "col"}, c));
    });
    head.appendChild(headRow);
    table.appendChild(head);
    var tbody = el("tbody");
    table.appendChild(tbody);
    [form, summary, meter, tuner, stops, table].forEach(function (n) { ui.appendChild(n); });
    root.appendChild(ui);

    function update() {
      controls.forEach(function (c) { c.show(); });
      var r = smem(p, state, state.head_dim, false);
      var h = heuristic(p, state.head_dim);
      root.classList.toggle("rd-dial-over", !r.fits);
      summary.textContent = tilingText(state) + " at head_dim " + state.head_dim + " (padded to " +
        r.padded_head_dim + "): " + fmt(r.total) + " B (" + kib(r.total) + ") of " + fmt(p.limit_bytes) +
        " B per block: " + (r.fits ? "fits, " + fmt(p.limit_bytes - r.total) + " B to spare."
                                   : "does not fit, " + fmt(r.total - p.limit_bytes) + " B over.");
      tuner.textContent = "tokamax's own estimate: " + fmt(r.estimate) + " B against its budget of " +
        fmt(p.budget_bytes) + " B, so " + (r.estimate <= p.budget_bytes ? "the tuner keeps" : "the tuner drops") +
        " this tiling; at head_dim " + state.head_dim + " its heuristic picks " + tilingText(h) + ".";
      bar(meter, r, p);
      stops.textContent = stopsFitting(p, state);
      breakdown(tbody, r, p);
    }
    update();
  }

  function mountAll() {
    var roots = document.querySelectorAll("[data-sm90-budget]:not([data-mounted])");
    Array.prototype.forEach.call(roots, function (root) {
      root.setAttribute("data-mounted", "");
      mount(root);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();
