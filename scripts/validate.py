#!/usr/bin/env python3
"""Validation on real loops (docs/validation.md): measure every committed
kernel of validation/asm/ with `winic MAN`, predict it with OSACA's shipped
model and with the model `winic export --osaca` makes of a winic database,
and print the table and each model's mean absolute relative error.

  python3 scripts/validate.py --osaca-python /tmp/osaca-venv/bin/python TP.yml LAT.yml

OSACA 0.7.1 in a virtual environment (the only network step):
  python3 -m venv /tmp/osaca-venv && /tmp/osaca-venv/bin/pip install osaca==0.7.1
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASM = os.path.join(ROOT, "validation", "asm")
ARCH = "ZEN4"
BASE = "zen4.yml"
# Kernels winic's assembler cannot read yet, and why (docs/validation.md);
# --check-assembly fails when one of them starts to assemble, so that this
# list shrinks with the assembler. Gathers are flagged in kernels.json.
KNOWN_REJECTED = {"count_if": "setl (winic reads setcc at condition ne only)"}


def die(msg):
    sys.exit("validate.py: " + msg)


# ---------------------------------------------------------------- winic input

def man_source(text):
    """The committed file as winic's assembler reads it: without OSACA's
    markers (outside the loop, and `mov ebx` would clobber rbx) and gcc's
    `.file`/`.ident`, and with the spellings it lacks (docs/validation.md)
    replaced by the same instruction: `sal` is `shl`; `movsx r64, DWORD PTR`
    is `movsxd`; `lea r, [0+x*S]` (no base register) is `lea r, [x+x]`
    once for S=2, then `lea r, [r+r]` (no flags, as lea). Returns the text
    and the rewritten lines."""
    out, changed = [], []
    for line in text.splitlines():
        if "OSACA START MARKER" in line or "OSACA END MARKER" in line:
            continue
        if re.match(r"^\s*\.(file|ident)\b", line):
            continue
        new = re.sub(r"^(\s*)sal(\s)", r"\1shl\2", line)
        new = re.sub(r"^(\s*)movsx(\s+r\w+,\s*DWORD PTR)", r"\1movsxd\2", new)
        g = re.match(r"^(\s*)lea\s+(\w+),\s*\[0\+(\w+)\*([248])\]\s*$", new)
        if g:
            ind, r, x, s = g.group(1), g.group(2), g.group(3), int(g.group(4))
            seq = ["%slea\t%s, [%s+%s]" % (ind, r, x, x)]
            seq += ["%slea\t%s, [%s+%s]" % (ind, r, r, r)] * {2: 0, 4: 1, 8: 2}[s]
            new = "\n".join(seq)
        if new != line:
            changed.append(line.strip())
        out.append(new)
    return "\n".join(out) + "\n", changed


def marked_lines(text):
    """1-based line numbers of the loop between the markers."""
    ls = text.splitlines()
    start = max(i for i, l in enumerate(ls) if "OSACA START MARKER" in l) + 2
    end = min(i for i, l in enumerate(ls) if "OSACA END MARKER" in l)
    return start, end


MAN_RE = re.compile(r": ([0-9.]+) cycles per instruction \(1 instructions per iteration")


def man(winic, path, func, init):
    cmd = [winic, "MAN", "-p", path, "--funcName", func, "-n", "1"]
    if init:
        cmd += ["--initName", init]
    r = subprocess.run(cmd, capture_output=True, text=True)
    g = MAN_RE.search(r.stdout)
    if r.returncode != 0 or not g:
        return None, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]
    return float(g.group(1)), ("NOISY" if "NOISY" in r.stdout else "")


def dry_assemble(winic, path):
    """Assemble only: a label the file lacks makes MAN stop after the
    assembler (exit 2, `has no label`)."""
    r = subprocess.run([winic, "MAN", "-p", path, "--funcName", "__no_such_label__", "-n", "1"],
                       capture_output=True, text=True)
    if "has no label `__no_such_label__`" in r.stderr:
        return None
    return r.stderr.strip()


# ---------------------------------------------------------------- OSACA output

def parse_osaca(out):
    """(throughput bound, LCD, unknown forms) from OSACA's text report: the
    largest port pressure of the totals row under the Combined Analysis
    Report's table (its last two figures are CP and LCD), the longest
    loop-carried dependency of the LCD report (0 when there is none)."""
    lines = out.splitlines()
    try:
        i = next(k for k, l in enumerate(lines) if l.startswith("Combined Analysis Report"))
    except StopIteration:
        raise ValueError("no Combined Analysis Report in OSACA's output")
    total = None
    for l in lines[i:]:
        if re.match(r"^\s+[0-9.]+(\s+[0-9.]+)*\s*$", l) and "|" not in l:
            total = [float(x) for x in l.split()]
            break
    if total is None or len(total) < 3:
        raise ValueError("no totals row in OSACA's table")
    tp = max(total[:-2])
    lcd = 0.0
    try:
        j = next(k for k, l in enumerate(lines) if l.startswith("Loop-Carried Dependencies"))
        for l in lines[j + 2:]:
            g = re.match(r"^\s*\d+\s*\|\s*([0-9.]+)\s*\|", l)
            if g:
                lcd = max(lcd, float(g.group(1)))
            elif l.strip():
                break
    except StopIteration:
        pass
    g = re.search(r"performance data for (\d+) instructions? (?:is|are) missing", out)
    return tp, lcd, int(g.group(1)) if g else 0


def osaca(python, path, lines, home):
    env = dict(os.environ)
    if home:
        env["HOME"] = home  # ~/.osaca/data/zen4.yml takes precedence over OSACA's own
    r = subprocess.run([python, "-c", "import sys; from osaca.osaca import main; sys.argv[0] = 'osaca'; main()",
                        "--arch", ARCH, "--ignore-unknown", "--lines", "%d-%d" % lines, path],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise ValueError("OSACA failed on %s: %s" % (path, r.stderr.strip()[-300:]))
    return parse_osaca(r.stdout)


# ---------------------------------------------------------------- table

def rel(pred, meas):
    return None if pred is None or meas is None else (pred - meas) / meas


def fmt(x, pct=False):
    if x is None:
        return "-"
    return "%+.0f%%" % (100 * x) if pct else "%.2f" % x


def table(rows):
    head = ["kernel", "isa", "measured", "shipped", "err", "exported", "err", "note"]
    body = []
    for r in rows:
        body.append([r["kernel"], r["isa"], fmt(r["measured"]), fmt(r["shipped"]),
                     fmt(rel(r["shipped"], r["measured"]), True), fmt(r["exported"]),
                     fmt(rel(r["exported"], r["measured"]), True), r["note"]])
    md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    md += ["| " + " | ".join(b) + " |" for b in body]
    w = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    txt = ["  ".join(str(x).ljust(n) for x, n in zip(line, w)) for line in [head] + body]
    summary = []
    for model in ("shipped", "exported"):
        errs = [abs(rel(r[model], r["measured"])) for r in rows
                if rel(r[model], r["measured"]) is not None]
        summary.append("mean absolute relative error, %s model: %s over %d kernels" % (
            model, "%.1f%%" % (100 * sum(errs) / len(errs)) if errs else "-", len(errs)))
    return "\n".join(txt), "\n".join(md), summary


# ---------------------------------------------------------------- main

def self_test():
    """The parser on the committed fixture of OSACA's output."""
    fx = os.path.join(ROOT, "tests", "fixtures", "osaca-sum_f64.avx2.txt")
    tp, lcd, unknown = parse_osaca(open(fx).read())
    assert (tp, lcd, unknown) == (2.0, 12.0, 0), (tp, lcd, unknown)
    text = open(os.path.join(ASM, "sum_f64.avx2.s")).read()
    src, _ = man_source(text)
    assert "OSACA" not in src and "\tsal\t" not in src
    a, b = marked_lines(text)
    assert text.splitlines()[a - 1].startswith(".L") and "jne" in text.splitlines()[b - 1]
    print("self-test: ok")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("db", nargs="*", help="winic databases to export (a TP and a LAT file)")
    ap.add_argument("--osaca-python", default=os.environ.get("WINIC_OSACA_PYTHON", "python3"),
                    help="a python with osaca==0.7.1 (default $WINIC_OSACA_PYTHON, else python3)")
    ap.add_argument("--winic", help="the winic binary (default: build target/release/winic)")
    ap.add_argument("--filter", default="", help="only kernels whose file name matches this regex")
    ap.add_argument("--out", default=os.path.join(ROOT, "validation", "table.md"),
                    help="the Markdown table to write (default validation/table.md)")
    ap.add_argument("--regenerate", action="store_true",
                    help="first compile the kernels again with gcc (validation/gen.py)")
    ap.add_argument("--check-assembly", action="store_true",
                    help="only assemble every kernel with winic (no timing, no OSACA)")
    ap.add_argument("--self-test", action="store_true", help="only test the OSACA output parser")
    a = ap.parse_args()
    if a.self_test:
        return self_test()

    if a.regenerate:
        if shutil.which("gcc") is None:
            die("gcc not found: --regenerate compiles validation/kernels/*.c with gcc "
                "(apt-get install gcc); without it the committed assembly is used")
        subprocess.run([sys.executable, os.path.join(ROOT, "validation", "gen.py")], check=True)

    winic = a.winic
    if not winic:
        if shutil.which("cargo") is None:
            die("cargo not found: install Rust, or give --winic BINARY")
        print("building winic (cargo build --release) ...", file=sys.stderr)
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        winic = os.path.join(ROOT, "target", "release", "winic")

    index = [k for k in json.load(open(os.path.join(ASM, "kernels.json")))
             if re.search(a.filter, k["file"])]
    if a.check_assembly:
        bad = 0
        with tempfile.TemporaryDirectory() as tmp:
            for k in index:
                src, _ = man_source(open(os.path.join(ASM, k["file"])).read())
                p = os.path.join(tmp, k["file"])
                open(p, "w").write(src)
                err = dry_assemble(winic, p)
                expected = k["gather"] or k["kernel"] in KNOWN_REJECTED
                if err and not expected:
                    print("%s: %s" % (k["file"], err))
                    bad += 1
                elif not err and expected:
                    print("%s: assembles now: take it off KNOWN_REJECTED" % k["file"])
                    bad += 1
        print("%d kernels checked, %d problems" % (len(index), bad))
        sys.exit(1 if bad else 0)

    if len(a.db) == 0:
        die("name the winic databases to export (e.g. /tmp/tp.yml /tmp/lat.yml)")
    for d in a.db:
        if not os.path.exists(d):
            die("database %s not found" % d)
    r = subprocess.run([a.osaca_python, "-c", "import osaca, os; print(osaca.__version__); "
                        "print(os.path.dirname(osaca.__file__))"], capture_output=True, text=True)
    if r.returncode != 0:
        die("OSACA not found in `%s`: python3 -m venv /tmp/osaca-venv && "
            "/tmp/osaca-venv/bin/pip install osaca==0.7.1, then --osaca-python "
            "/tmp/osaca-venv/bin/python" % a.osaca_python)
    version, pkg = r.stdout.split()
    if version != "0.7.1":
        print("validate.py: warning: OSACA %s, not 0.7.1" % version, file=sys.stderr)

    home = tempfile.mkdtemp(prefix="winic-validate-")
    data = os.path.join(home, ".osaca", "data")
    os.makedirs(data)
    model = os.path.join(data, BASE)
    r = subprocess.run([winic, "export", "--osaca"] + a.db +
                       ["--base", os.path.join(pkg, "data", BASE), "-o", model],
                       capture_output=True, text=True)
    if r.returncode != 0:
        die("winic export failed: " + r.stderr.strip())
    print(r.stdout.strip(), file=sys.stderr)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in index:
            path = os.path.join(ASM, k["file"])
            text = open(path).read()
            lines = marked_lines(text)
            row = {"kernel": k["kernel"], "isa": k["isa"], "measured": None,
                   "shipped": None, "exported": None, "note": ""}
            notes = []
            for model_name, h in (("shipped", None), ("exported", home)):
                tp, lcd, unknown = osaca(a.osaca_python, path, lines, h)
                row[model_name] = max(tp, lcd)
                row[model_name + "_tp"], row[model_name + "_lcd"] = tp, lcd
                if unknown:
                    notes.append("%s: %d unknown" % (model_name, unknown))
            if k["gather"]:
                notes.append("gather: winic cannot run it")
            elif k["kernel"] in KNOWN_REJECTED:
                notes.append("not assembled: " + KNOWN_REJECTED[k["kernel"]])
            else:
                src, changed = man_source(text)
                p = os.path.join(tmp, k["file"])
                open(p, "w").write(src)
                small, s_note = man(winic, p, "bench_small", k["init"])
                large, l_note = man(winic, p, "bench_large", k["init"])
                if small is None or large is None:
                    notes.append("MAN: " + (s_note if small is None else l_note))
                else:
                    row["measured"] = (large - small) / (k["trips_large"] - k["trips_small"])
                    if s_note or l_note:
                        notes.append("noisy")
            row["note"] = "; ".join(notes)
            rows.append(row)
            print("%-14s %-6s measured %s  shipped %s (tp %.2f, lcd %.2f)  exported %s (tp %.2f, lcd %.2f)  %s" % (
                k["kernel"], k["isa"], fmt(row["measured"]), fmt(row["shipped"]), row["shipped_tp"],
                row["shipped_lcd"], fmt(row["exported"]), row["exported_tp"], row["exported_lcd"],
                row["note"]), file=sys.stderr)
    txt, md, summary = table(rows)
    print(txt)
    print("\n".join(summary))
    cpu = ""
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    with open(a.out, "w") as f:
        f.write("Cycles per iteration of the marked loop on %s; OSACA 0.7.1 `--arch %s`, "
                "shipped `%s` and `winic export --osaca %s --base %s`.\n\n" % (
                    cpu or "this machine", ARCH, BASE, " ".join(os.path.basename(d) for d in a.db), BASE))
        f.write(md + "\n\n" + "\n".join("- " + s for s in summary) + "\n")
    print("table written to %s" % a.out, file=sys.stderr)
    shutil.rmtree(home)


if __name__ == "__main__":
    main()
