"use strict";
// winic html: filters, sorting and a form's detail over the data above.
// The state lives in the address's fragment (#q=...&ext=...&diff=...&
// sort=...&desc=1&detail=...), so a view can be bookmarked and a test
// can open one.
const DATA = JSON.parse(document.getElementById("data").textContent);
const DBS = DATA.dbs;
const ROWS = DATA.rows;
const SHOWN = 500;
const VALUES = [["tp", "throughput", 0], ["lat", "latency", 1], ["ports", "ports", 3]];
const state = { q: "", ext: "", diff: null, sort: "name", desc: false, detail: null };
const $ = (id) => document.getElementById(id);

function readHash() {
  const h = new URLSearchParams(location.hash.replace(/^#/, ""));
  state.q = h.get("q") || "";
  state.ext = h.get("ext") || "";
  const d = parseFloat(h.get("diff"));
  state.diff = isFinite(d) && d >= 0 ? d : null;
  state.sort = h.get("sort") || "name";
  state.desc = h.get("desc") === "1";
  state.detail = h.get("detail");
}

function writeHash() {
  const h = new URLSearchParams();
  if (state.q) h.set("q", state.q);
  if (state.ext) h.set("ext", state.ext);
  if (state.diff !== null) h.set("diff", String(state.diff));
  if (state.sort !== "name") h.set("sort", state.sort);
  if (state.desc) h.set("desc", "1");
  if (state.detail) h.set("detail", state.detail);
  history.replaceState(null, "", "#" + h.toString());
}

// The value of column `col` of a row, for sorting.
function cell(row, col) {
  if (col === "name") return row.n;
  if (col === "asm") return row.asm;
  if (col === "ext") return row.ext;
  const m = /^(tp|lat|ports)(\d+)$/.exec(col);
  if (!m) return null;
  const v = row.v[+m[2]];
  if (!v) return null;
  return v[VALUES.find((x) => x[0] === m[1])[2]];
}

// Whether two values differ by more than pct percent (and the
// databases' rounding, 0.01 cycles).
function apart(a, b, pct) {
  return a !== null && b !== null && a > 0 &&
    Math.abs(b - a) > (pct / 100) * a && Math.abs(b - a) > 0.01 + 1e-9;
}

// Whether any database's throughput or latency differs from the first's.
function differs(row, pct) {
  const first = row.v[0];
  for (let i = 1; i < row.v.length; i++) {
    const v = row.v[i];
    if (!first || !v) continue;
    if (apart(first[0], v[0], pct) || apart(first[1], v[1], pct)) return true;
  }
  return false;
}

function filtered() {
  let re = null;
  $("status").classList.remove("error");
  if (state.q) {
    try {
      re = new RegExp(state.q, "i");
    } catch (e) {
      $("status").classList.add("error");
      $("status").textContent = "not a regular expression: " + state.q;
      return null;
    }
  }
  const rows = ROWS.filter((r) =>
    (!re || re.test(r.n) || re.test(r.m) || re.test(r.asm)) &&
    (!state.ext || r.ext === state.ext) &&
    (state.diff === null || differs(r, state.diff)));
  const dir = state.desc ? -1 : 1;
  rows.sort((a, b) => {
    const x = cell(a, state.sort), y = cell(b, state.sort);
    // Rows without the value last, whichever the direction.
    if (x === null || x === "") return y === null || y === "" ? a.n.localeCompare(b.n) : 1;
    if (y === null || y === "") return -1;
    const c = typeof x === "number" ? x - y : String(x).localeCompare(String(y));
    return c !== 0 ? dir * c : a.n.localeCompare(b.n);
  });
  return rows;
}

function text(tag, content, cls) {
  const e = document.createElement(tag);
  if (content !== undefined && content !== null) e.textContent = content;
  if (cls) e.className = cls;
  return e;
}

function header() {
  const thead = document.querySelector("#forms thead");
  thead.textContent = "";
  const top = document.createElement("tr");
  const th0 = text("th", "form", "group");
  th0.colSpan = 3;
  top.appendChild(th0);
  DBS.forEach((d) => {
    const th = text("th", d.label, "group");
    th.colSpan = VALUES.length;
    th.title = d.path + " (" + d.forms + " forms)";
    top.appendChild(th);
  });
  thead.appendChild(top);
  const tr = document.createElement("tr");
  const cols = [["name", "LLVM name"], ["asm", "instance"], ["ext", "extension"]];
  DBS.forEach((d, i) => VALUES.forEach(([k, label]) => cols.push([k + i, label])));
  cols.forEach(([col, label]) => {
    const th = text("th", label);
    th.dataset.col = col;
    if (state.sort === col) th.className = "sorted" + (state.desc ? " desc" : "");
    th.onclick = () => {
      state.desc = state.sort === col ? !state.desc : false;
      state.sort = col;
      update();
    };
    tr.appendChild(th);
  });
  thead.appendChild(tr);
}

function fmt(x) {
  return x === null || x === undefined ? "-" : String(x);
}

function body(rows) {
  const tbody = document.querySelector("#forms tbody");
  tbody.textContent = "";
  const threshold = state.diff === null ? 10 : state.diff;
  rows.slice(0, SHOWN).forEach((r) => {
    const tr = document.createElement("tr");
    tr.dataset.name = r.n;
    const name = text("td", r.n, "name");
    name.onclick = () => {
      state.detail = state.detail === r.n ? null : r.n;
      update();
    };
    tr.appendChild(name);
    const asm = text("td", r.asm, "asm");
    asm.title = r.asm;
    tr.appendChild(asm);
    tr.appendChild(text("td", r.ext, "ext"));
    r.v.forEach((v, i) => VALUES.forEach(([k, , at]) => {
      const value = v ? v[at] : null;
      const td = text("td", v ? fmt(value === "" ? null : value) : "-");
      if (!v || value === null || value === "") td.className = "none";
      else if (i > 0 && k !== "ports" && r.v[0]) {
        const first = r.v[0][at];
        if (apart(first, value, threshold)) td.className = value > first ? "slower" : "faster";
      }
      tr.appendChild(td);
    }));
    tbody.appendChild(tr);
  });
}

function detail() {
  const box = $("detail");
  const r = state.detail && ROWS.find((x) => x.n === state.detail);
  box.hidden = !r;
  box.textContent = "";
  if (!r) return;
  box.appendChild(text("h2", r.n + " (" + r.m + ", " + r.ext + ")"));
  box.appendChild(text("p", r.asm, "asm"));
  r.v.forEach((v, i) => {
    box.appendChild(text("h3", DBS[i].label));
    // What the runs' reports (--report) said of the form.
    ((r.r || [])[i] || []).forEach(([mode, at]) => {
      box.appendChild(text("h4", mode + " report"));
      box.appendChild(text("pre", at.map((k) => DATA.lines[k]).join("\n"), "report"));
    });
    if (!v) {
      box.appendChild(text("p", "not in this database"));
      return;
    }
    box.appendChild(text("p", "throughput " + fmt(v[0]) + " cycles, latency " + fmt(v[1]) +
      (v[3] ? ", ports " + v[3] : "") + "; operands: " + (v[4].join(", ") || "none")));
    if (v[2].length) {
      const t = document.createElement("table");
      const h = document.createElement("tr");
      ["from", "to", "latency"].forEach((x) => h.appendChild(text("th", x)));
      t.appendChild(h);
      v[2].forEach(([from, to, lo, hi]) => {
        const tr = document.createElement("tr");
        tr.appendChild(text("td", from));
        tr.appendChild(text("td", to));
        tr.appendChild(text("td", lo === hi ? fmt(lo) : "[" + fmt(lo) + ", " + fmt(hi) + "]"));
        t.appendChild(tr);
      });
      box.appendChild(t);
    }
  });
}

function update() {
  writeHash();
  header();
  const t0 = performance.now();
  const rows = filtered();
  const ms = performance.now() - t0;
  if (rows === null) {
    body([]);
  } else {
    body(rows);
    $("status").textContent = rows.length + " of " + ROWS.length + " forms" +
      (rows.length > SHOWN ? " (the first " + SHOWN + " shown)" : "") +
      "; filtered and sorted in " + ms.toFixed(0) + " ms";
  }
  $("more").textContent = rows && rows.length > SHOWN ? "Narrow the filter to see the others." : "";
  detail();
}

function start() {
  readHash();
  $("sources").textContent = DATA.arch + ": " + DBS.map((d) => d.label + " (" + d.path + ", " +
    d.forms + " forms)").join("; ");
  const exts = [...new Set(ROWS.map((r) => r.ext))].sort();
  exts.forEach((e) => $("ext").appendChild(text("option", e)));
  $("q").value = state.q;
  $("ext").value = state.ext;
  $("diff").value = state.diff === null ? "" : state.diff;
  $("q").oninput = () => { state.q = $("q").value; update(); };
  $("ext").onchange = () => { state.ext = $("ext").value; update(); };
  $("diff").oninput = () => {
    const d = parseFloat($("diff").value);
    state.diff = isFinite(d) && d >= 0 ? d : null;
    update();
  };
  window.onhashchange = () => { readHash(); update(); };
  update();
}

start();
