#!/usr/bin/env bash
# check-layers.sh — winic's top-level modules depend on each other one way.
#
# Reads every src/**/*.rs, finds which top-level module uses which — `use
# crate::…` statements (one path, or `{…}` groups over several lines),
# `crate::…` paths anywhere in the code, `super::` chains that climb to the
# crate root, and `winic::…` in src/main.rs and src/main/ — prints that graph and FAILS
# (exit 1) when
#   - an edge points up the layer order below (a module uses one of a higher
#     layer),
#   - modules of one layer use each other in a cycle (tsort), or
#   - a module has no layer (a new module must be placed).
#
# Not counted: comments (doc links such as [`crate::probe`] included),
# string literals, and test code — `#[cfg(test)]` / `#[cfg(all(test, …))]`
# items and the files such a `mod x;` declares. Tests may drive a lower
# module through a higher one (an arch's kernels run through `runcheck`);
# their edges are listed apart, unchecked. `super::` chains are resolved by
# the file's place (an inline `mod x { … }` outside tests, which would
# deepen it, uses none); the modules are those src/lib.rs declares.
#
# Usage: scripts/check-layers.sh        (no arguments; run from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."

# The layers, lowest first. A module may use the modules of its own layer
# and of the layers below it, never one above.
LAYERS=(
  "isa interrupt measure error testing input raw" # the tables, the stop flag, statistics, winic's own errors, how tests skip, bounded reads of others' files, raw records
  "arch"                        # the per-arch Targets: encode, print, check, frames, host sources
  "kernel"                      # kernel functions and body shapes, built, never run
  "selfcheck inspect asm elf"   # encoders over whole tables, listing, the assembler, ELF files: never run code
  "exec"                        # forked children, W^X code, timing; a form's kernels run once
  "probe"                       # the host's features its source cannot report, tried in a child
  "runcheck"                    # every form's kernels run once
  "db report lock"              # the results database, the report file, one run per database
  "mode export compare html"    # TP and LAT runs (their rows' report blocks too); a database as an OSACA file; two databases compared; a page of databases
  "main"                        # the CLI (src/main.rs and src/main/, through `winic::`)
)

layers=$(IFS='|'; echo "${LAYERS[*]}")
modules=$(sed -n 's/^[[:space:]]*\(pub[[:space:]]\{1,\}\)\{0,1\}mod[[:space:]]\{1,\}\([a-z_0-9]\{1,\}\)[[:space:]]*;.*/\2/p' src/lib.rs | tr '\n' ' ')
[ -f src/main.rs ] && modules="$modules main"

edges=$(mktemp)
trap 'rm -f "$edges" "$edges.tsort"' EXIT

# The edges: one line `code|test FROM TO FILE:LINE` per module pair and
# file (the first place seen).
read -r -d '' EDGES <<'AWK' || true
function ident(c) { return c ~ /[A-Za-z0-9_]/ }

# The line without comments and string/char literal contents, carrying the
# lexer state (block comment depth, open string, raw string hashes) across
# lines.
function clean(s,    out, i, n, c, d, j, h) {
  out = ""; n = length(s); i = 1
  while (i <= n) {
    c = substr(s, i, 1)
    if (blk > 0) {
      d = substr(s, i, 2)
      if (d == "*/") { blk--; i += 2 } else if (d == "/*") { blk++; i += 2 } else i++
      continue
    }
    if (instr) {
      if (c == "\\") { i += 2; continue }
      if (c == "\"") { instr = 0; out = out "\"" }
      i++; continue
    }
    if (raw >= 0) {
      if (c == "\"" && substr(s, i + 1, raw) == substr("################", 1, raw)) {
        out = out "\""; i += 1 + raw; raw = -1
      } else i++
      continue
    }
    d = substr(s, i, 2)
    if (d == "//") break
    if (d == "/*") { blk = 1; i += 2; continue }
    if (c == "\"") { instr = 1; out = out "\""; i++; continue }
    if (c == "r" && (i == 1 || !ident(substr(s, i - 1, 1)) || (substr(s, i - 1, 1) == "b" && (i == 2 || !ident(substr(s, i - 2, 1)))))) {
      j = i + 1; h = 0
      while (substr(s, j, 1) == "#") { j++; h++ }
      if (substr(s, j, 1) == "\"") { raw = h; out = out "\""; i = j + 1; continue }
    }
    if (c == "'") {
      # A char literal (`'x'`, `'\n'`, `'\u{7f}'`), not a lifetime (`'a`).
      if (substr(s, i + 1, 1) == "\\") {
        j = index(substr(s, i + 2), "'")
        if (j > 0) { out = out "''"; i = i + 2 + j; continue }
      } else if (substr(s, i + 2, 1) == "'") { out = out "''"; i += 3; continue }
    }
    out = out c; i++
  }
  return out
}

function edge(to, line) {
  if (to == "" || to == self || !(to in known)) return
  key = self SUBSEP to SUBSEP FILENAME SUBSEP intest
  if (key in seen) return
  seen[key] = 1
  nedges++
  efrom[nedges] = self; eto[nedges] = to; efile[nedges] = FILENAME; eline[nedges] = line
  etest[nedges] = intest
}

# The top-level module a path (after `use `, or inline) names, or "".
function target(p,    k) {
  sub(/^[ \t]*::/, "", p)
  if (p ~ ("^" root "::")) return substr(p, length(root) + 3)
  k = 0
  while (p ~ /^super::/) { p = substr(p, 8); k++ }
  if (k > 0 && k >= depth) return p
  return ""
}

# Every top-level module of the use tree `t` (after `crate::`).
function use_tree(t, line,    n, i, c, lvl, item) {
  sub(/^[ \t]+/, "", t)
  if (substr(t, 1, 1) != "{") { match(t, /^[A-Za-z_][A-Za-z0-9_]*/); edge(substr(t, 1, RLENGTH), line); return }
  lvl = 0; item = ""; n = length(t)
  for (i = 1; i <= n; i++) {
    c = substr(t, i, 1)
    if (c == "{") { lvl++; if (lvl == 1) continue }
    if (c == "}") { lvl--; if (lvl == 0) { c = "," } }
    if (c == "," && lvl <= 1) {
      sub(/^[ \t]+/, "", item)
      if (match(item, /^[A-Za-z_][A-Za-z0-9_]*/)) edge(substr(item, 1, RLENGTH), line)
      item = ""; if (lvl == 0) break; continue
    }
    item = item c
  }
}

BEGIN {
  split(modules, m, " "); for (k in m) known[m[k]] = 1
  raw = -1
}

FNR == 1 {
  blk = 0; instr = 0; raw = -1; skip = 0; inuse = 0
  path = FILENAME; sub(/^src\//, "", path); sub(/\.rs$/, "", path)
  self = path; sub(/\/.*/, "", self)
  if (self == "lib") self = ""
  root = (self == "main") ? "winic" : "crate"
  sub(/\/mod$/, "", path)
  depth = (path == "lib" || path == "main") ? 0 : split(path, parts, "/")
  # Where `mod x;` in this file finds x.
  dir = FILENAME; sub(/\.rs$/, "", dir)
  if (dir ~ /\/(mod|lib|main)$/) sub(/\/[a-z]+$/, "", dir)
}

{
  line = clean($0)
  if (self == "") next
  # Test code: from a `#[cfg(test)]` attribute to the end of the item it
  # gates (its braces closed, or its `;`).
  if (!skip && line ~ /^[ \t]*#\[cfg\((test|all\(test[,)])/) {
    skip = 1; opened = 0; lvl = 0
    sub(/^[ \t]*#\[cfg\([^]]*\)\][ \t]*/, "", line)
    if (line ~ /^[ \t]*$/) next
  }
  intest = skip
  if (skip) {
    if (!opened && match(line, /^[ \t]*(pub[ \t]+)?mod[ \t]+[a-z_0-9]+[ \t]*;/)) {
      t = line; sub(/^[ \t]*(pub[ \t]+)?mod[ \t]+/, "", t); sub(/[ \t]*;.*/, "", t)
      testmod[dir "/" t] = 1
    }
    t = line; o = gsub(/\{/, "", t); c = gsub(/\}/, "", t)
    lvl += o - c; if (o > 0) opened = 1
    if ((opened && lvl <= 0) || (!opened && line ~ /;/)) skip = 0
  }
  if (inuse || line ~ /^[ \t]*(pub(\([a-z]+\))?[ \t]+)?use[ \t]/) {
    if (!inuse) { stmt = ""; first = FNR }
    stmt = stmt " " line
    if (line !~ /;/) { inuse = 1; next }
    inuse = 0
    sub(/^[ \t]*(pub(\([a-z]+\))?[ \t]+)?use[ \t]+/, "", stmt)
    t = target(stmt)
    if (t != "") use_tree(t, first)
    next
  }
  rest = line
  while (match(rest, /(crate|winic|super)::[A-Za-z_][A-Za-z0-9_:]*/)) {
    before = (RSTART > 1) ? substr(rest, RSTART - 1, 1) : " "
    p = substr(rest, RSTART, RLENGTH)
    rest = substr(rest, RSTART + RLENGTH)
    if (ident(before)) continue
    t = target(p)
    if (t != "") { match(t, /^[A-Za-z_][A-Za-z0-9_]*/); edge(substr(t, 1, RLENGTH), FNR) }
  }
}

END {
  for (i = 1; i <= nedges; i++) {
    f = efile[i]; sub(/\.rs$/, "", f); sub(/\/mod$/, "", f)
    kind = etest[i] ? "test" : "code"
    for (tm in testmod) if (f == tm || index(f, tm "/") == 1) kind = "test"
    printf "%s %s %s %s:%d\n", kind, efrom[i], eto[i], efile[i], eline[i]
  }
}
AWK
mapfile -t files < <(find src -name "*.rs" | LC_ALL=C sort)
awk -v modules="$modules" "$EDGES" "${files[@]}" >"$edges"

# Verdicts, from the edges and the layers.
status=0
awk -v layers="$layers" -v modules="$modules" '
BEGIN {
  nl = split(layers, L, "|")
  for (i = 1; i <= nl; i++) { n = split(L[i], ms, " "); for (k = 1; k <= n; k++) layer[ms[k]] = i }
}
{
  kind = $1; from = $2; to = $3; where = $4
  pair = from " " to
  if (kind == "code") {
    if (!(pair in code)) { code[pair] = where; uses[from] = uses[from] " " to }
    else if (index(code[pair], where) == 0 && split(code[pair], x, " ") < 3) code[pair] = code[pair] " " where
  } else if (!(pair in test)) { test[pair] = where }
}
function sorted(list,    n, a, i, j, t, out) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  out = ""; for (i = 1; i <= n; i++) out = out (out == "" ? "" : " ") a[i]
  return out
}
END {
  print "Layers, lowest first (a module may use its own layer and those below):"
  for (i = 1; i <= nl; i++) printf "  %2d  %s\n", i, L[i]
  print ""
  print "Dependencies (module -> the modules it uses), by layer:"
  for (i = 1; i <= nl; i++) {
    n = split(L[i], ms, " ")
    for (k = 1; k <= n; k++) printf "  %2d  %-10s -> %s\n", i, ms[k], sorted(uses[ms[k]])
  }
  for (pair in test) if (!(pair in code)) { split(pair, p, " "); tuses[p[1]] = tuses[p[1]] " " p[2] }
  tl = ""
  for (f in tuses) tl = tl " " f
  nt = split(sorted(tl), tf, " ")
  if (nt > 0) {
    print ""
    print "Used by test code only (not checked):"
    for (i = 1; i <= nt; i++) printf "      %-10s -> %s\n", tf[i], sorted(tuses[tf[i]])
  }
  bad = 0
  nm = split(modules, M, " ")
  for (i = 1; i <= nm; i++) if (!(M[i] in layer)) {
    printf "check-layers: FAIL: module %s has no layer: add it to LAYERS in scripts/check-layers.sh\n", M[i] > "/dev/stderr"
    bad = 1
  }
  for (pair in code) {
    split(pair, p, " ")
    if ((p[1] in layer) && (p[2] in layer) && layer[p[2]] > layer[p[1]]) {
      printf "check-layers: FAIL: %s (layer %d) uses %s (layer %d), which is above it: %s\n", p[1], layer[p[1]], p[2], layer[p[2]], code[pair] > "/dev/stderr"
      bad = 1
    }
  }
  exit bad
}
' "$edges" || status=1

# Cycles, within a layer as well: tsort names one.
if ! awk '$1 == "code" { print $2, $3 }' "$edges" | tsort >/dev/null 2>"$edges.tsort"; then
  echo "check-layers: FAIL: the modules use each other in a cycle:" >&2
  sed 's/^/  /' "$edges.tsort" >&2
  status=1
fi

n=$(awk '$1 == "code" { print $2, $3 }' "$edges" | sort -u | wc -l)
if [ "$status" = 0 ]; then
  echo
  echo "check-layers: ok: $n edges between $(echo "$modules" | wc -w) modules, none points up, no cycle"
fi
exit "$status"
