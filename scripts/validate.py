#!/usr/bin/env python3
"""Validation on real loops (docs/validation.md): measure every committed
kernel of validation/asm/ with `winic MAN`, predict it with OSACA's shipped
model of this CPU's core, with the model `winic export --osaca --base` makes
of a winic database and that model's file, and with the one it makes without
a base (whose ports are those `winic ports -o` inferred, where the database
has them), and print the table, each model's mean absolute relative error
and, for latency-bound loops, whether each is within 5%.

  python3 scripts/validate.py --osaca-python /tmp/osaca-venv/bin/python DB.yml
  python3 scripts/validate.py --measured m.json DB.yml          # keep the timings
  python3 scripts/validate.py --reuse-measured m.json DB.yml    # predict again, no timing

The core comes from /proc/cpuinfo (vendor, family, model, flags); --arch
names OSACA's model instead (e.g. --arch ZEN4). OSACA 0.7.1 in a virtual
environment (the only network step):
  python3 -m venv /tmp/osaca-venv && /tmp/osaca-venv/bin/pip install osaca==0.7.1
"""
import argparse
import datetime
import functools
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASM = os.path.join(ROOT, "validation", "asm")
# The loop suites validation/gen.py compiles, by name: their assembly.
SUITES = {"kernels": ASM, "lfk": os.path.join(ROOT, "validation", "asm-lfk")}
PREDICT = os.path.join(ROOT, "scripts", "osaca-predict.py")
# Kernels winic's assembler cannot read yet, and why (docs/validation.md);
# --check-assembly fails when one of them starts to assemble, so that this
# list shrinks with the assembler. Gathers are flagged in kernels.json.
KNOWN_REJECTED = {}
# Arches whose gcc output winic's assembler does not read yet, and why: all
# their kernels count as rejected, and --check-assembly fails when one of
# them starts to assemble.
ARCH_NOT_READ = {}
# The models each kernel is predicted with: OSACA's shipped one, winic's
# export into it (--base), and winic's export without a base, whose ports
# are those `winic ports -o` inferred where the database has them.
MODELS = ("shipped", "exported", "nobase")
# A latency-bound prediction counts as right within this relative error.
LATENCY_TOLERANCE = 0.05
# man_pair: rounds of the two functions, and how close each one's two fastest must be.
MAN_REPEATS = 3
MAN_AGREEMENT = 0.01
# man_pair: a run whose clock moved more than this while it ran (winic's
# "drift") converted its time at an uncertain clock; rounds go on, up to
# MAN_MAX_ROUNDS, until each function has two runs that did not.
MAN_MAX_DRIFT = 0.02
MAN_MAX_ROUNDS = 6


def die(msg):
    sys.exit("validate.py: " + msg)


def not_read(k):
    """Why winic's assembler cannot read a kernel yet, or None."""
    return KNOWN_REJECTED.get(k["kernel"]) if k["arch"] == "x86_64" else ARCH_NOT_READ.get(k["arch"])


def host_arch():
    m = platform.machine()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m.lower(), m)


# ---------------------------------------------------------------- the core

def cpu_of(cpuinfo):
    """Vendor, family, model, flags and name of the first processor of a
    /proc/cpuinfo text."""
    cpu = {"vendor": "", "family": None, "model": None, "flags": set(), "name": "",
           "implementer": None, "part": None}
    for line in cpuinfo.splitlines():
        if not line.strip():
            break  # the first processor only
        key, _, value = (x.strip() for x in line.partition(":"))
        if key == "vendor_id":
            cpu["vendor"] = value
        elif key == "cpu family":
            cpu["family"] = int(value)
        elif key == "model":
            cpu["model"] = int(value)
        elif key in ("flags", "Features"):
            cpu["flags"] = set(value.split())
        elif key == "CPU implementer":
            cpu["implementer"] = int(value, 0)
        elif key == "CPU part":
            cpu["part"] = int(value, 0)
        elif key in ("model name", "uarch"):  # RISC-V names its core `uarch`
            cpu["name"] = value
    return cpu


def this_cpu():
    """cpu_of this machine's /proc/cpuinfo (an unknown CPU without one)."""
    try:
        return cpu_of(open("/proc/cpuinfo").read())
    except OSError:
        return cpu_of("")


def cpu_text(cpu):
    """`Intel(R) Xeon(R) Processor (GenuineIntel family 6 model 0xcf)`, or
    `implementer 0x41 part 0xd0c` of an AArch64 core."""
    if cpu["implementer"] is not None:
        ids = "implementer 0x%x part 0x%x" % (cpu["implementer"], cpu["part"] or 0)
        return "%s (%s)" % (cpu["name"], ids) if cpu["name"] else ids
    ids = "%s family %s model %s" % (
        cpu["vendor"] or "unknown vendor",
        "-" if cpu["family"] is None else "0x%x" % cpu["family"] if cpu["family"] > 9 else cpu["family"],
        "-" if cpu["model"] is None else "0x%x" % cpu["model"])
    return "%s (%s)" % (cpu["name"], ids) if cpu["name"] else ids


def osaca_arch(cpu):
    """OSACA's arch code for the core (its machine file is the code in
    lower case, `.yml`), or None for a core this script does not map."""
    family, model = cpu["family"], cpu["model"]
    if cpu["vendor"] == "AuthenticAMD" and family == 0x19 and model is not None:
        if 0x10 <= model <= 0x1f or 0x60 <= model <= 0x7f or 0xa0 <= model <= 0xaf:
            return "ZEN4"  # Genoa, Raphael/Phoenix, Bergamo
        return "ZEN3"  # Milan, Vermeer, Cezanne, Rembrandt
    if cpu["vendor"] == "GenuineIntel" and family == 6:
        if cpu["flags"] & {"avx512_fp16", "amx_tile"} or model in (0x8f, 0xcf):
            return "SPR"  # Sapphire and Emerald Rapids
    return AARCH64_CORES.get((cpu["implementer"], cpu["part"]))


# OSACA's AArch64 models by /proc/cpuinfo's `CPU implementer` and `CPU part`.
AARCH64_CORES = {
    (0x41, 0xd0c): "N1", (0x41, 0xd4f): "V2", (0x41, 0xd08): "A72",
    (0x46, 0x001): "A64FX", (0x48, 0xd01): "TSV110", (0x43, 0x0af): "TX2",
    (0x42, 0x516): "TX2", (0x61, 0x022): "M1", (0x61, 0x023): "M1",
}
# The arch of each kernel variant's code, as platform.machine() names it,
# and OSACA's name of the ISAs it reads.
ARCHES = ("x86_64", "aarch64", "riscv64")
OSACA_ISA = {"x86_64": "x86", "aarch64": "aarch64"}


# ---------------------------------------------------------------- winic input

def man_source(text):
    """The committed file as winic's assembler reads it: without OSACA's
    markers (outside the loop, and `mov ebx` would clobber rbx) and gcc's
    `.file`/`.ident`, and with the spellings it lacks (docs/validation.md)
    replaced by the same instruction: `sal` is `shl`; `movsx r64, DWORD PTR`
    is `movsxd`; RISC-V `fgt.d rd, a, b` is `flt.d rd, b, a` (`fge`:
    `fle`); `lea r, [d+x*S]` (no base register, which winic's
    assembler does not encode yet) is `lea r, [x+x]` once for S=2, then
    `lea r, [r+r]`, then `lea r, [r+d]` when d is not 0 (no flags, as lea).
    Returns the text and the rewritten lines inside the marked loop (whose
    time the rewrite would change)."""
    out, changed = [], []
    inside = False
    for line in text.splitlines():
        if "OSACA START MARKER" in line or "OSACA END MARKER" in line:
            inside = "OSACA START MARKER" in line
            continue
        if re.match(r"^\s*\.(file|ident)\b", line):
            continue
        new = re.sub(r"^(\s*)sal(\s)", r"\1shl\2", line)
        # RISC-V `fgt.d rd, a, b` is `flt.d rd, b, a` (fge: fle), an alias
        # winic reads no RISC-V alias of.
        new = re.sub(r"^(\s*)f(g)([te])\.([sdh])(\s+)(\w+),\s*(\w+),\s*(\w+)\s*$",
                     lambda g: "%sfl%s.%s%s%s,%s,%s" % (g.group(1), g.group(3), g.group(4),
                                                       g.group(5), g.group(6), g.group(8),
                                                       g.group(7)), new)
        new = re.sub(r"^(\s*)movsx(\s+r\w+,\s*DWORD PTR)", r"\1movsxd\2", new)
        g = re.match(r"^(\s*)lea\s+(\w+),\s*\[(-?\d+)\+(\w+)\*([248])\]\s*$", new)
        if g:
            ind, r, d, x, s = g.group(1), g.group(2), int(g.group(3)), g.group(4), int(g.group(5))
            seq = ["%slea\t%s, [%s+%s]" % (ind, r, x, x)]
            seq += ["%slea\t%s, [%s+%s]" % (ind, r, r, r)] * {2: 0, 4: 1, 8: 2}[s]
            if d:
                seq.append("%slea\t%s, [%s%+d]" % (ind, r, r, d))
            new = "\n".join(seq)
        if new != line and inside:
            changed.append(line.strip())
        out.append(new)
    return "\n".join(out) + "\n", changed


# The marked loop of both functions starts at a multiple of this many
# bytes when timed (docs/validation.md, "Where the loop sits"): gcc aligns a
# loop to 16 bytes only, so where it falls in the front end's 64-byte fetch
# windows depended on the code before it, and could differ between
# bench_small and bench_large.
LOOP_ALIGN_LOG2 = 6


@functools.lru_cache(maxsize=None)
def gen_module():
    """validation/gen.py, whose loop finder names the marked loop's twin in
    bench_small (loaded once)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "gen", os.path.join(ROOT, "validation", "gen.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


def align_marked_loops(src, arch, loop):
    """man_source's text with `.p2align LOOP_ALIGN_LOG2` before the marked
    loop of bench_large (label `loop`, as kernels.json names it) and its
    twin in bench_small, found as gen.py found them. A Zen 4 loop of 24
    bytes across a 64-byte boundary ran 2.0 cycles an iteration, inside one
    window 1.0 (docs/measurements.md); no model of the loop's text can
    tell which its place was, and when the two functions' places differed,
    bench_large - bench_small was not the loop's time (`count_if.sse` came
    out 0.59 cycles, faster than its own 1-cycle counter)."""
    gen = gen_module()
    lines = src.split("\n")
    fns = gen.functions(lines)
    a = gen.ARCHES[arch]
    at = []
    for f in ("bench_small", "bench_large"):
        first, _ = gen.choose(lines, fns[f], a)
        at.append(first)
    got = re.match(r"^(\.L\w+):", lines[at[1]]).group(1)
    if got != loop:
        die("bench_large's loop is %s, kernels.json names %s: run validation/gen.py again" % (
            got, loop))
    for i in sorted(at, reverse=True):
        lines.insert(i, "\t.p2align %d" % LOOP_ALIGN_LOG2)
    return "\n".join(lines)


def marked_lines(text):
    """1-based line numbers of the loop between the markers."""
    ls = text.splitlines()
    start = max(i for i, l in enumerate(ls) if "OSACA START MARKER" in l) + 2
    end = min(i for i, l in enumerate(ls) if "OSACA END MARKER" in l)
    return start, end


MAN_RE = re.compile(r": ([0-9.]+) cycles per instruction \(1 instructions per iteration")
DRIFT_RE = re.compile(r"-f auto: measured, drift ([0-9.]+)%")


def man(winic, path, func, init):
    """(cycles per call, the clock's drift during the run as a fraction),
    or (None, why)."""
    cmd = winic + ["MAN", "-p", path, "--funcName", func, "-n", "1"]
    if init:
        cmd += ["--initName", init]
    r = subprocess.run(cmd, capture_output=True, text=True)
    g = MAN_RE.search(r.stdout)
    if r.returncode != 0 or not g:
        return None, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]
    d = DRIFT_RE.search(r.stdout)
    return float(g.group(1)), (float(d.group(1)) / 100 if d else 0.0)


def man_pair(winic, path, init, runs=None):
    """The costs per call of bench_small and bench_large, each the fastest
    of repeated MAN runs, the two functions in turn: another tenant only
    ever adds time, and a slow stretch during bench_small alone makes the
    difference large - small too small (a loop faster than its own
    chain). A run whose clock drifted more than MAN_MAX_DRIFT is not one
    of the fastest: its time was converted at a clock in error by up to
    half the drift, and the fastest of such runs is the one whose clock
    erred most low (seen: bench_small of fnv_hash.avx2 at 838-857 cycles
    with drifts of 4.7-10.8%, 904-915 with 0.4-2.7%; with 5% allowed,
    reductions came out up to 8% faster than their own chain). Stops when
    each function's two fastest runs agree within MAN_AGREEMENT; after
    MAN_REPEATS rounds (more, up to MAN_MAX_ROUNDS, while a function has
    fewer than two runs that did not drift) the pair is "NOISY". Returns
    (small, large, note); a failed run's (None, None, why). `runs`
    replaces MAN in the self-test: [(small, large), ...], each a cost or
    (cost, drift)."""
    seen, drifted = ([], []), ([], [])
    for n in range(MAN_MAX_ROUNDS if not runs else len(runs)):
        for i, func in enumerate(("bench_small", "bench_large")):
            got = runs[n][i] if runs else man(winic, path, func, init)
            cost, drift = got if isinstance(got, tuple) else (got, 0.0)
            if cost is None:
                return None, None, drift
            (seen if drift <= MAN_MAX_DRIFT else drifted)[i].append(cost)
        if all(len(c) >= 2 and sorted(c)[1] <= min(c) * (1 + MAN_AGREEMENT) for c in seen):
            return min(seen[0]), min(seen[1]), ""
        if n + 1 >= MAN_REPEATS and all(len(c) >= 2 for c in seen):
            break
    small, large = (min(c or d) for c, d in zip(seen, drifted))
    return small, large, "NOISY"


def dry_assemble(winic, path):
    """Assemble only: a label the file lacks makes MAN stop after the
    assembler (exit 2, `has no label`)."""
    r = subprocess.run(winic + ["MAN", "-p", path, "--funcName", "__no_such_label__", "-n", "1"],
                       capture_output=True, text=True)
    if "has no label `__no_such_label__`" in r.stderr:
        return None
    return r.stderr.strip()


# ---------------------------------------------------------------- OSACA

def probe_osaca(python):
    """OSACA's version, its data directory and the arch codes it has a
    machine file for per ISA (x86, aarch64), from the python that has it;
    None without OSACA."""
    code = ("import json, os, osaca\n"
            "from osaca.osaca import SUPPORTED_ARCHS\n"
            "from osaca.semantics import MachineModel\n"
            "d = os.path.join(os.path.dirname(osaca.__file__), 'data')\n"
            "print(json.dumps({'version': osaca.__version__, 'data': d, 'archs': {i: [a for a in "
            "SUPPORTED_ARCHS if MachineModel.get_isa_for_arch(a) == i and "
            "os.path.exists(os.path.join(d, a.lower() + '.yml'))] for i in ('x86', 'aarch64')}}))")
    try:
        r = subprocess.run([python, "-c", code], capture_output=True, text=True)
    except OSError:
        return None
    return json.loads(r.stdout) if r.returncode == 0 else None


# An x86-64 general-purpose register as gcc's Intel syntax names it.
GPR = r"(?:r(?:[abcd]x|[sd]i|[sb]p|\d+[dwb]?)|e(?:[abcd]x|[sd]i|[sb]p)|[abcd]x|[sd]i|[sb]p)"


def osaca_source(text):
    """The committed x86 file as OSACA reads it right, line for line:
    `[rdx+rax]` (two registers, no scale, no displacement) spelled
    `[rdx+rax*1]`, the same address. OSACA 0.7.1's Intel parser reads the
    `rax` of `[rdx+rax]` as a symbol, so it does not see the index change
    from one iteration to the next, and a store and a later load of
    `[rdx+rax]` become a false dependency through memory (`matvec_t.sse`:
    LCD 7.00 with its own `zen4.yml`, 1.00 for `[rdx+rax*1]` or the AT&T
    text; measured 1.17). `[r8+4+rsi]` and `[rsi+rax*4]` it reads right."""
    return re.sub(r"\[(%s)\+(%s)\]" % (GPR, GPR), r"[\1+\2*1]", text)


def predict(python, arch, model, isa, jobs):
    """OSACA's figures of every job ({file, lines}) with one model, in one
    python process (scripts/osaca-predict.py): OSACA's own file of arch,
    or the machine file model; OSACA's ISA file, or isa."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(jobs, f)
    try:
        cmd = ([python, PREDICT, "--arch", arch, f.name] + (["--model", model] if model else []) +
               (["--isa", isa] if isa else []))
        r = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        die("OSACA failed (%s): %s" % (" ".join(cmd), r.stderr.strip()[-600:]))
    return json.loads(r.stdout)


def parse_osaca(out):
    """(throughput bound, LCD, unknown forms) from OSACA's text report: the
    largest port pressure of the totals row under the Combined Analysis
    Report's table (its last two figures are CP and LCD), the longest
    loop-carried dependency of the LCD report (0 when there is none), the
    rows flagged X (no data; with --ignore-unknown OSACA prints no count)."""
    lines = out.splitlines()
    try:
        i = next(k for k, l in enumerate(lines) if l.startswith("Combined Analysis Report"))
    except StopIteration:
        raise ValueError("no Combined Analysis Report in OSACA's output")
    total = None
    unknown = 0
    for l in lines[i:]:
        g = re.match(r"^\s*\d+ .*\|\|[^|]*\|[^|]*\| ([*XP]*)", l)
        if g and "X" in g.group(1):
            unknown += 1
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
    return tp, lcd, unknown


def osaca_cli(python, arch, path, lines, home):
    """One loop through OSACA's command line (a process per loop and model,
    about 30 s each): only to check predict() against it (--compare-cli).
    With home, ~/.osaca/data/ of that HOME holds the model to use."""
    env = dict(os.environ)
    if home:
        env["HOME"] = home
    r = subprocess.run([python, "-c", "import sys; from osaca.osaca import main; sys.argv[0] = 'osaca'; main()",
                        "--arch", arch, "--ignore-unknown", "--lines", "%d-%d" % lines, path],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise ValueError("OSACA failed on %s: %s" % (path, r.stderr.strip()[-300:]))
    return parse_osaca(r.stdout)


# ---------------------------------------------------------------- llvm-mca

# llvm-mca's -mcpu for a core: x86 by CPUID vendor, family and model
# (OSACA has no Zen 5 model, LLVM 19 has znver5), AArch64 by OSACA's code
# of the core.
MCA_AARCH64 = {"N1": "neoverse-n1", "V2": "neoverse-v2", "A72": "cortex-a72",
               "A64FX": "a64fx", "TSV110": "tsv110", "TX2": "thunderx2t99", "M1": "apple-m1"}


def mca_cpu(cpu):
    """llvm-mca's -mcpu for this core, or None for one it is not mapped
    to."""
    family, model = cpu["family"], cpu["model"]
    if cpu["vendor"] == "AuthenticAMD" and family == 0x1a:
        return "znver5"
    if cpu["vendor"] == "AuthenticAMD" and family == 0x19:
        return "znver4" if osaca_arch(cpu) == "ZEN4" else "znver3"
    if cpu["vendor"] == "GenuineIntel" and family == 6 and osaca_arch(cpu) == "SPR":
        return "emeraldrapids" if model == 0xcf else "sapphirerapids"
    return MCA_AARCH64.get(osaca_arch(cpu) or "")


def find_mca(given):
    """The llvm-mca binary: the one given, else llvm-mca-19 or llvm-mca on
    PATH; None when there is none."""
    for b in ([given] if given else ["llvm-mca-19", "llvm-mca"]):
        if shutil.which(b):
            return shutil.which(b)
    if given:
        die("llvm-mca `%s` not found (Debian: apt-get install llvm-19; or --no-mca)" % given)
    return None


MCA_TRIPLE = {"x86_64": "x86_64-unknown-linux-gnu", "aarch64": "aarch64-unknown-linux-gnu",
              "riscv64": "riscv64-unknown-linux-gnu"}
MCA_ITERATIONS = 500


def mca_source(text, lines, target):
    """The marked loop (lines, 1-based, inclusive) as llvm-mca reads it:
    x86 in Intel syntax, as gcc wrote it, behind `.intel_syntax noprefix`."""
    a, b = lines
    body = "\n".join(text.splitlines()[a - 1:b]) + "\n"
    return (".intel_syntax noprefix\n" if target == "x86_64" else "") + body


def parse_mca(out):
    """Cycles per iteration from llvm-mca's summary (Total Cycles over
    Iterations: the simulated loop, its dependences included)."""
    it = re.search(r"^Iterations:\s+(\d+)", out, re.M)
    cyc = re.search(r"^Total Cycles:\s+(\d+)", out, re.M)
    if not it or not cyc:
        raise ValueError("no `Iterations` and `Total Cycles` in llvm-mca's output")
    return int(cyc.group(1)) / int(it.group(1))


def mca_predict(binary, mcpu, target, jobs):
    """llvm-mca's cycles per iteration of every job ({file, lines}), or
    {"error": why} for one it cannot read."""
    out = []
    for job in jobs:
        src = mca_source(open(job["file"]).read(), job["lines"], target)
        r = subprocess.run([binary, "-mtriple=" + MCA_TRIPLE[target], "-mcpu=" + mcpu,
                            "-iterations=%d" % MCA_ITERATIONS, "-"],
                           input=src, capture_output=True, text=True)
        if r.returncode != 0:
            first = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]
            out.append({"error": first})
            continue
        out.append({"cycles": parse_mca(r.stdout)})
    return out


# ---------------------------------------------------------------- measurements

def write_measured(path, cpu, rows):
    """The measured cycles per iteration of every kernel (null where none),
    with what a later --reuse-measured needs to trust them."""
    doc = {
        "what": "cycles per iteration of the marked loop, measured by winic MAN (scripts/validate.py)",
        "cpu": cpu_text(cpu),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "kernels": {r["file"]: {"cycles_per_iteration": r["measured"], "note": r["measure_note"]}
                    for r in rows},
    }
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def read_measured(path, cpu):
    """{file: (cycles per iteration or None, note)} of a --measured file;
    warns when it was measured on another CPU."""
    try:
        doc = json.load(open(path))
        kernels = doc["kernels"]
    except (OSError, ValueError, KeyError) as e:
        die("cannot read measurements from %s: %s (write them with --measured FILE)" % (path, e))
    if doc.get("cpu") != cpu_text(cpu):
        print("validate.py: warning: %s was measured on %s, this is %s" % (
            path, doc.get("cpu"), cpu_text(cpu)), file=sys.stderr)
    return {f: (v.get("cycles_per_iteration"), v.get("note", "")) for f, v in kernels.items()}


# ---------------------------------------------------------------- table

def rel(pred, meas):
    return None if pred is None or meas is None else (pred - meas) / meas


def fmt(x, pct=False):
    if x is None:
        return "-"
    return "%+.0f%%" % (100 * x) if pct else "%.2f" % x


def latency_bound(kernel, row):
    """Why the loop is latency-bound: marked a reduction in kernels.json,
    or a model's longest loop-carried dependency above its throughput
    bound; empty when neither."""
    why = ["reduction"] if kernel.get("reduction") else []
    if any(row[m + "_lcd"] is not None and row[m + "_lcd"] > row[m + "_tp"]
           for m in ("shipped", "exported")):
        why.append("LCD")
    return ", ".join(why)


def faster_than_chain(row):
    """Whether a loop ran more than the tolerance faster than the exported
    model's loop-carried chain, which is made of winic's own latencies:
    one of the two is wrong (every loop's induction variable is such a
    chain, of at least one add)."""
    lcd, meas = row.get("exported_lcd"), row["measured"]
    return (lcd is not None and meas is not None
            and meas < lcd * (1 - LATENCY_TOLERANCE) - 1e-9)


def within(pred, meas):
    e = rel(pred, meas)
    return None if e is None else abs(e) <= LATENCY_TOLERANCE + 1e-9


def yes_no(x):
    return "-" if x is None else "yes" if x else "no"


def table(rows):
    head = ["kernel", "isa", "measured", "shipped", "err", "exported", "err", "no base", "err",
            "llvm-mca", "err", "latency-bound", "within 5% (shipped/exported)", "note"]
    body = []
    for r in rows:
        lat = ""
        if r["latency_bound"]:
            lat = "%s/%s" % (yes_no(within(r["shipped"], r["measured"])),
                             yes_no(within(r["exported"], r["measured"])))
        body.append([r["kernel"], r["isa"], fmt(r["measured"]), fmt(r["shipped"]),
                     fmt(rel(r["shipped"], r["measured"]), True), fmt(r["exported"]),
                     fmt(rel(r["exported"], r["measured"]), True), fmt(r.get("nobase")),
                     fmt(rel(r.get("nobase"), r["measured"]), True), fmt(r.get("mca")),
                     fmt(rel(r.get("mca"), r["measured"]), True), r["latency_bound"], lat,
                     r["note"]])
    md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    md += ["| " + " | ".join(b) + " |" for b in body]
    w = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    txt = ["  ".join(str(x).ljust(n) for x, n in zip(line, w)).rstrip() for line in [head] + body]
    summary = []
    label = {"shipped": "shipped model", "exported": "exported model",
             "nobase": "exported model without a base (winic's inferred ports)",
             "mca": "llvm-mca"}
    def mare(rs, model):
        errs = [abs(rel(r.get(model), r["measured"])) for r in rs
                if rel(r.get(model), r["measured"]) is not None]
        return "%.1f%%" % (100 * sum(errs) / len(errs)) if errs else "-", len(errs)

    for model in MODELS + ("mca",):
        summary.append("mean absolute relative error, %s: %s over %d kernels" % (
            (label[model],) + mare(rows, model)))
    # The same where every model analyses the loop and the measurement is
    # possible (not faster than its own chain), by kind of loop: the
    # figures models are compared on.
    fair = [r for r in rows if r["measured"] is not None and not faster_than_chain(r)
            and all(r.get(m) is not None for m in MODELS)]
    for kind, rs in (("all", fair), ("throughput-bound", [r for r in fair if not r["latency_bound"]]),
                     ("latency-bound", [r for r in fair if r["latency_bound"]])):
        summary.append("%s loops every OSACA model analyses, not measured faster than their "
                       "chain (%d): %s" % (kind, len(rs), ", ".join(
                           "%s %s" % (label[m].split(" (")[0], mare(rs, m)[0])
                           for m in MODELS + ("mca",))))
    lat = [r for r in rows if r["latency_bound"] and r["measured"] is not None]
    red = [r for r in lat if "reduction" in r["latency_bound"]]
    def hits(rs, model):
        """`a of n`: the loops among rs the model predicts within 5%, of
        those it predicts at all."""
        had = [r for r in rs if r[model] is not None]
        return "%d of %d" % (sum(1 for r in had if within(r[model], r["measured"])), len(had))

    summary.append("latency-bound kernels (reductions by construction, kernels.json) within "
                   "5%% of the measurement: shipped model %s, exported model %s "
                   "(%d measured, %d not)" % (
                       hits(red, "shipped"), hits(red, "exported"), len(red),
                       sum(1 for r in rows if "reduction" in r["latency_bound"]
                           and r["measured"] is None)))
    only = [r for r in lat if "reduction" not in r["latency_bound"]]
    summary.append("loops only a model calls latency-bound (its LCD above its throughput bound; "
                   "not counted above): shipped model %s, exported model %s within 5%%" % (
                       hits(only, "shipped"), hits(only, "exported")))
    fast = [r for r in rows if faster_than_chain(r)]
    summary.append("loops measured more than %d%% faster than the exported model's chain "
                   "(physically impossible: a measurement or model error): %s" % (
                       100 * LATENCY_TOLERANCE,
                       ", ".join("%s.%s" % (r["kernel"], r["isa"]) for r in fast) or "none"))
    return "\n".join(txt), "\n".join(md), summary


def choose_model(python, given, target):
    """OSACA's facts (probe_osaca), this CPU, the arch code and OSACA's
    machine file for it: the --arch given, else this CPU's core; for the
    kernels of `target` (x86_64, aarch64). Stops when OSACA is missing or
    has no model for the core, naming what to do."""
    osaca = probe_osaca(python)
    if osaca is None:
        die("OSACA not found in `%s`: python3 -m venv /tmp/osaca-venv && "
            "/tmp/osaca-venv/bin/pip install osaca==0.7.1, then --osaca-python "
            "/tmp/osaca-venv/bin/python" % python)
    if osaca["version"] != "0.7.1":
        print("validate.py: warning: OSACA %s, not 0.7.1" % osaca["version"], file=sys.stderr)
    cpu = this_cpu()
    isa = OSACA_ISA.get(target)
    if isa is None:
        die("OSACA %s reads x86 and AArch64 code only, not the %s kernels: "
            "--check-assembly checks that winic reads them" % (osaca["version"], target))
    arch = (given or osaca_arch(cpu) or "").upper()
    if not arch:
        die("no OSACA model is known for this CPU, %s: give --arch, one of %s" % (
            cpu_text(cpu), ", ".join(osaca["archs"][isa])))
    if arch not in osaca["archs"][isa]:
        die("OSACA %s has no %s model `%s`: give --arch, one of %s" % (
            osaca["version"], isa, arch, ", ".join(osaca["archs"][isa])))
    base = arch.lower() + ".yml"
    print("CPU %s: OSACA --arch %s (%s)%s" % (cpu_text(cpu), arch, base,
                                               ", given by --arch" if given else ""),
          file=sys.stderr)
    return osaca, cpu, arch, base


# ---------------------------------------------------------------- main

CPUINFO = """processor\t: 0
vendor_id\t: %s
cpu family\t: %d
model\t\t: %d
model name\t: test
flags\t\t: fpu sse2 %s

processor\t: 1
vendor_id\t: nobody
"""


def self_test():
    """The parser on the committed fixture of OSACA's output, the choice
    of the core, the measurements' file and the latency-bound verdicts."""
    fx = os.path.join(ROOT, "tests", "fixtures", "osaca-sum_f64.avx2.txt")
    tp, lcd, unknown = parse_osaca(open(fx).read())
    assert (tp, lcd, unknown) == (2.0, 12.0, 0), (tp, lcd, unknown)
    fx = os.path.join(ROOT, "tests", "fixtures", "osaca-unknown.txt")
    tp, lcd, unknown = parse_osaca(open(fx).read())
    assert (tp, lcd, unknown) == (0.4, 1.0, 1), (tp, lcd, unknown)
    text = open(os.path.join(ASM, "sum_f64.avx2.s")).read()
    src, _ = man_source(text)
    assert "OSACA" not in src and "\tsal\t" not in src
    # A base-less address: the same value through leas, and a rewritten
    # line inside the loop is named (its time would not be the loop's).
    src, inside = man_source("\tlea\trbp, [8+rdi*8]\n\tmov ebx, 111\t# OSACA START MARKER\n"
                             ".L3:\n\tlea\trax, [0+rax*4]\n\tmov ebx, 222\t# OSACA END MARKER\n")
    assert src.split("\n")[:4] == ["\tlea\trbp, [rdi+rdi]", "\tlea\trbp, [rbp+rbp]",
                                   "\tlea\trbp, [rbp+rbp]", "\tlea\trbp, [rbp+8]"], src
    assert inside == ["lea\trax, [0+rax*4]"], inside
    assert man_source("\tfgt.d\ta7,fa5,fa4\n")[0] == "\tflt.d\ta7,fa4,fa5\n"
    assert man_source("\tfge.s\ta0, ft1, ft2\n")[0] == "\tfle.s\ta0,ft2,ft1\n"
    a, b = marked_lines(text)
    assert text.splitlines()[a - 1].startswith(".L") and "jne" in text.splitlines()[b - 1]
    assert osaca_source("\tmovups\tXMMWORD PTR [rdx+rax], xmm1\n\tmov\teax, [r8+4+rsi]\n"
                        "\tmov\tecx, [rsi+rax*4]\n\tlea\tr9d, [r10+r11d]\n") == (
        "\tmovups\tXMMWORD PTR [rdx+rax*1], xmm1\n\tmov\teax, [r8+4+rsi]\n"
        "\tmov\tecx, [rsi+rax*4]\n\tlea\tr9d, [r10+r11d*1]\n")
    # Both functions' marked loops, and only they, start at 64 bytes.
    k = next(k for k in json.load(open(os.path.join(ASM, "kernels.json")))
             if k["file"] == "sum_f64.avx2.s")
    al = align_marked_loops(man_source(text)[0], "x86_64", k["loop"]).split("\n")
    at = [i for i, l in enumerate(al) if l == "\t.p2align 6"]
    assert len(at) == 2 and al[at[1] + 1] == k["loop"] + ":", at
    assert al[at[0] + 1] != al[at[1] + 1] and al[at[0] + 1].startswith(".L"), al[at[0] + 1]

    cores = [("GenuineIntel", 6, 0xcf, "avx512f avx512_fp16 amx_tile", "SPR"),
             ("GenuineIntel", 6, 0x8f, "avx512f", "SPR"),
             ("GenuineIntel", 6, 0xad, "amx_tile", "SPR"),
             ("GenuineIntel", 6, 0x55, "avx512f", None),
             ("AuthenticAMD", 0x19, 0x11, "avx512f", "ZEN4"),
             ("AuthenticAMD", 0x19, 0x61, "avx512f", "ZEN4"),
             ("AuthenticAMD", 0x19, 0xa0, "avx512f", "ZEN4"),
             ("AuthenticAMD", 0x19, 0x01, "avx2", "ZEN3"),
             ("AuthenticAMD", 0x19, 0x50, "avx2", "ZEN3"),
             ("AuthenticAMD", 0x1a, 0x02, "avx512f", None),
             ("AuthenticAMD", 0x17, 0x31, "avx2", None)]
    for vendor, family, model, flags, arch in cores:
        cpu = cpu_of(CPUINFO % (vendor, family, model, flags))
        assert osaca_arch(cpu) == arch, (vendor, family, model, flags, osaca_arch(cpu))
    assert osaca_arch(cpu_of("")) is None
    assert cpu_text(cpu_of(CPUINFO % ("AuthenticAMD", 0x19, 0x11, ""))) == \
        "test (AuthenticAMD family 0x19 model 0x11)"
    # A Neoverse N1 (AWS Graviton2) as its kernel prints it.
    n1 = cpu_of("processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd crc32 atomics\n"
                "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n"
                "CPU part\t: 0xd0c\nCPU revision\t: 1\n\nprocessor\t: 1\nCPU part\t: 0xd40\n")
    assert osaca_arch(n1) == "N1" and cpu_text(n1) == "implementer 0x41 part 0xd0c", cpu_text(n1)
    assert "asimd" in n1["flags"]
    assert osaca_arch(dict(n1, part=0xd40)) is None  # Neoverse V1: no OSACA model

    row = {"file": "sum_f64.avx2.s", "measured": 16.08, "measure_note": ""}
    gone = {"file": "gather.avx2.s", "measured": None, "measure_note": "gather: winic cannot run it"}
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "m.json")
        cpu = cpu_of(CPUINFO % ("GenuineIntel", 6, 0xcf, ""))
        write_measured(p, cpu, [row, gone])
        assert read_measured(p, cpu) == {"sum_f64.avx2.s": (16.08, ""),
                                         "gather.avx2.s": (None, "gather: winic cannot run it")}

    r = {"shipped_tp": 2.0, "shipped_lcd": 8.0, "exported_tp": 2.0, "exported_lcd": 16.0}
    assert latency_bound({"reduction": True}, r) == "reduction, LCD"
    r.update(shipped_lcd=1.0, exported_lcd=2.0)
    assert latency_bound({"reduction": False}, r) == ""
    assert latency_bound({"reduction": True}, r) == "reduction"
    r.update(shipped_tp=None, shipped_lcd=None, exported_lcd=3.0)  # shipped: no analysis
    assert latency_bound({"reduction": False}, r) == "LCD"
    assert within(16.8, 16.0) and not within(16.9, 16.0) and within(None, 16.0) is None
    assert faster_than_chain({"exported_lcd": 32.0, "measured": 29.98})
    assert man_pair(None, None, None, [(300.0, 1000.0), (256.0, 1010.0), (257.0, 1001.0)]) == \
        (256.0, 1000.0, "")
    assert man_pair(None, None, None, [(300.0, 1000.0), (256.0, 1100.0), (280.0, 1200.0)]) == \
        (256.0, 1000.0, "NOISY")
    assert man_pair(None, None, None, [((None, "why"), 1.0)]) == (None, None, "why")
    # A run whose clock drifted is not among the fastest; rounds go on
    # until each function has two that did not drift.
    drift = [((250.0, 0.08), 1000.0), (256.0, 1001.0), ((240.0, 0.06), 1000.0),
             (257.0, 1000.0)]
    assert man_pair(None, None, None, drift) == (256.0, 1000.0, ""), man_pair(
        None, None, None, drift)
    assert man_pair(None, None, None, drift[:1]) == (250.0, 1000.0, "NOISY")
    assert not faster_than_chain({"exported_lcd": 32.0, "measured": 30.5})
    assert not faster_than_chain({"exported_lcd": None, "measured": 1.0})

    # llvm-mca: the core's -mcpu, the loop it reads, its summary.
    for vendor, family, model, flags, mcpu in [
            ("AuthenticAMD", 0x1a, 0x02, "avx512f", "znver5"),
            ("AuthenticAMD", 0x19, 0x11, "avx512f", "znver4"),
            ("AuthenticAMD", 0x19, 0x01, "avx2", "znver3"),
            ("GenuineIntel", 6, 0xcf, "amx_tile", "emeraldrapids"),
            ("GenuineIntel", 6, 0x8f, "amx_tile", "sapphirerapids"),
            ("GenuineIntel", 6, 0x55, "avx512f", None)]:
        got = mca_cpu(cpu_of(CPUINFO % (vendor, family, model, flags)))
        assert got == mcpu, (vendor, family, model, got)
    assert mca_cpu(n1) == "neoverse-n1"
    src = mca_source(text, (a, b), "x86_64")
    assert src.startswith(".intel_syntax noprefix\n.L") and src.rstrip().splitlines()[-1].strip().startswith("jne"), src
    summary = ("Iterations:        500\nInstructions:      3500\nTotal Cycles:      2006\n"
               "Total uOps:        3500\n\nDispatch Width:    6\n")
    assert parse_mca(summary) == 2006 / 500
    try:
        parse_mca("error: invalid instruction")
        raise AssertionError("parse_mca took an output without a summary")
    except ValueError:
        pass
    print("self-test: ok")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("db", nargs="*", help="winic databases to export (TP and LAT, one file or two)")
    ap.add_argument("--osaca-python", default=os.environ.get("WINIC_OSACA_PYTHON", "python3"),
                    help="a python with osaca==0.7.1 (default $WINIC_OSACA_PYTHON, else python3)")
    ap.add_argument("--arch", help="OSACA's model to use (e.g. SPR, ZEN4; default: this CPU's core)")
    ap.add_argument("--winic", help="the winic binary (default: build target/release/winic)")
    ap.add_argument("--suite", default="kernels", choices=sorted(SUITES),
                    help="the loops: the project's own (kernels, the default) or the Livermore "
                    "loops (lfk, validation/lfk/README.md)")
    ap.add_argument("--filter", default="", help="only kernels whose file name matches this regex")
    ap.add_argument("--target", default=host_arch(), choices=ARCHES,
                    help="the arch whose kernels to run (default this machine's, %(default)s)")
    ap.add_argument("--runner", default="", metavar="CMD",
                    help="a command to run winic under, e.g. `qemu-aarch64 -cpu max` with "
                    "--target aarch64 (timings under an emulator mean nothing)")
    ap.add_argument("--out", default=os.path.join(ROOT, "validation", "table.md"),
                    help="the Markdown table to write (default validation/table.md)")
    ap.add_argument("--measured", metavar="FILE",
                    help="also write the measured cycles per iteration to this JSON file")
    ap.add_argument("--reuse-measured", metavar="FILE",
                    help="take the measurements from a --measured file instead of timing")
    ap.add_argument("--llvm-mca", metavar="BINARY",
                    help="the llvm-mca to predict with beside OSACA (default llvm-mca-19 or "
                    "llvm-mca on PATH; none found: that column stays empty, said so)")
    ap.add_argument("--mcpu", help="llvm-mca's -mcpu (default: this CPU's core, e.g. znver5)")
    ap.add_argument("--no-mca", action="store_true", help="no llvm-mca column")
    ap.add_argument("--compare-cli", type=int, default=0, metavar="N",
                    help="check the first N kernels' predictions against OSACA's command line")
    ap.add_argument("--regenerate", action="store_true",
                    help="first compile the kernels again with gcc (validation/gen.py)")
    ap.add_argument("--check-assembly", action="store_true",
                    help="only assemble every kernel with winic (no timing, no OSACA)")
    ap.add_argument("--which-model", action="store_true",
                    help="only print the arch code and OSACA's machine file this run would use")
    ap.add_argument("--self-test", action="store_true",
                    help="only test the OSACA output parser, the core's choice and the files")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if a.which_model:
        osaca, _, arch, base = choose_model(a.osaca_python, a.arch, a.target)
        print(arch, os.path.join(osaca["data"], base))
        return

    if a.regenerate:
        if shutil.which("gcc") is None:
            die("gcc not found: --regenerate compiles validation/kernels/*.c with gcc "
                "(apt-get install gcc); without it the committed assembly is used")
        subprocess.run([sys.executable, os.path.join(ROOT, "validation", "gen.py"),
                        "--suite", a.suite], check=True)

    asm = SUITES[a.suite]
    index = [k for k in json.load(open(os.path.join(asm, "kernels.json")))
             if re.search(a.filter, k["file"]) and k["arch"] == a.target]
    if not index:
        die("no %s kernel matches --filter `%s`" % (a.target, a.filter))
    runner = shlex.split(a.runner)
    # OSACA 0.7.1 reads x86 and AArch64; RISC-V kernels are measured only.
    predicted = a.target in OSACA_ISA
    if not a.check_assembly:
        # Everything that can stop the run before the build and the timing.
        if len(a.db) == 0 and predicted:
            die("name the winic databases to export (e.g. /tmp/full/db.yaml)")
        for d in a.db:
            if not os.path.exists(d):
                die("database %s not found" % d)
        if predicted:
            osaca, cpu, arch, base = choose_model(a.osaca_python, a.arch, a.target)
        else:
            osaca, arch, base = None, None, None
            cpu = this_cpu()
            print("validate.py: OSACA 0.7.1 reads no %s code: measuring only%s" % (
                a.target, " (the databases are not used)" if a.db else ""), file=sys.stderr)
        measured = read_measured(a.reuse_measured, cpu) if a.reuse_measured else None

    winic = a.winic
    if not winic and a.target != host_arch():
        die("the %s kernels need a winic built for %s: give --winic (scripts/build-static.sh %s "
            "makes one) and, on this %s machine, --runner 'qemu-%s -cpu max'" % (
                a.target, a.target, a.target, host_arch(), a.target))
    if not winic:
        if shutil.which("cargo") is None:
            die("cargo not found: install Rust, or give --winic BINARY")
        print("building winic (cargo build --release) ...", file=sys.stderr)
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        winic = os.path.join(ROOT, "target", "release", "winic")
    winic = runner + [winic]

    if a.check_assembly:
        bad = 0
        with tempfile.TemporaryDirectory() as tmp:
            for k in index:
                # As the timing hands it to MAN: its marked loops aligned.
                src, _ = man_source(open(os.path.join(asm, k["file"])).read())
                p = os.path.join(tmp, k["file"])
                open(p, "w").write(align_marked_loops(src, k["arch"], k["loop"]))
                err = dry_assemble(winic, p)
                expected = not_read(k) is not None
                if err and not expected:
                    print("%s: %s" % (k["file"], err))
                    bad += 1
                elif not err and expected:
                    print("%s: assembles now: take it off KNOWN_REJECTED or ARCH_NOT_READ" % k["file"])
                    bad += 1
        why = [not_read(k) for k in index if not_read(k) is not None]
        if why:
            print("%d of them not read by winic's assembler yet, as expected: %s" % (
                len(why), "; ".join(sorted(set(why)))))
        print("%d kernels checked, %d problems" % (len(index), bad))
        sys.exit(1 if bad else 0)

    jobs = []
    for k in index:
        path = os.path.join(asm, k["file"])
        jobs.append({"file": path, "lines": list(marked_lines(open(path).read()))})
    home = None
    if predicted:
        # The export goes where OSACA's command line would look for the
        # model of its arch (~/.osaca/data/ of a temporary HOME), for
        # --compare-cli.
        home = tempfile.mkdtemp(prefix="winic-validate-")
        # What OSACA reads: x86 files with the addresses its Intel parser
        # misreads spelled as it reads them right (osaca_source).
        osaca_jobs = []
        os.makedirs(os.path.join(home, "loops"))
        for job in jobs:
            text = open(job["file"]).read()
            path = os.path.join(home, "loops", os.path.basename(job["file"]))
            open(path, "w").write(osaca_source(text) if a.target == "x86_64" else text)
            osaca_jobs.append(dict(job, file=path))
        data = os.path.join(home, ".osaca", "data")
        os.makedirs(data)
        model = os.path.join(data, base)
        # With OSACA's ISA file as LLVM's records correct it (x86: which
        # operands a form reads and writes), where OSACA looks first.
        isa = None
        if a.target == "x86_64":
            isa = os.path.join(data, "isa", "x86.yml")
            os.makedirs(os.path.dirname(isa))
        r = subprocess.run(winic + ["export", "--osaca"] + a.db +
                           ["--base", os.path.join(osaca["data"], base), "-o", model] +
                           (["--isa-out", isa] if isa else []),
                           capture_output=True, text=True)
        if r.returncode != 0:
            die("winic export failed: " + r.stderr.strip())
        print(r.stdout.strip(), file=sys.stderr)
        # Without a base: the ports `winic ports -o` put into the database.
        nobase = os.path.join(home, "nobase.yml")
        r = subprocess.run(winic + ["export", "--osaca"] + a.db + ["-o", nobase],
                           capture_output=True, text=True)
        if r.returncode != 0:
            die("winic export (without --base) failed: " + r.stderr.strip())
        print(r.stdout.strip(), file=sys.stderr)
        t0 = time.monotonic()
        predictions = {"shipped": predict(a.osaca_python, arch, None, None, osaca_jobs),
                       "exported": predict(a.osaca_python, arch, model, isa, osaca_jobs),
                       "nobase": predict(a.osaca_python, arch, nobase, isa, osaca_jobs)}
        print("predictions: %d kernels with %d models in %.0f s" % (
            len(jobs), len(MODELS), time.monotonic() - t0), file=sys.stderr)
    else:
        none = {"error": "OSACA 0.7.1 reads no %s code" % a.target}
        predictions = {m: [none] * len(jobs) for m in MODELS}

    # llvm-mca beside OSACA: LLVM's own scheduling model of the core.
    mca, mcpu, mca_why = None, None, None
    if not a.no_mca:
        mca = find_mca(a.llvm_mca)
        mcpu = a.mcpu or mca_cpu(cpu)
        if mca is None:
            mca_why = "no llvm-mca on PATH (Debian: apt-get install llvm-19)"
        elif mcpu is None:
            mca_why = "no llvm-mca -mcpu known for %s: give --mcpu" % cpu_text(cpu)
    else:
        mca_why = "--no-mca"
    if mca_why is None:
        t0 = time.monotonic()
        predictions["mca"] = mca_predict(mca, mcpu, a.target, jobs)
        print("llvm-mca -mcpu=%s: %d kernels in %.0f s" % (
            mcpu, len(jobs), time.monotonic() - t0), file=sys.stderr)
    else:
        print("validate.py: no llvm-mca column: %s" % mca_why, file=sys.stderr)
        predictions["mca"] = [{"error": mca_why}] * len(jobs)

    for job in (osaca_jobs[:a.compare_cli] if predicted else []):
        for name, h in (("shipped", None), ("exported", home)):
            cli = osaca_cli(a.osaca_python, arch, job["file"], tuple(job["lines"]), h)
            p = next(x for x in predictions[name] if x["file"] == job["file"])
            if "error" in p:
                print("compare-cli %s %s: skipped, %s" % (os.path.basename(job["file"]), name,
                                                          p["error"]), file=sys.stderr)
                continue
            api = (round(p["tp"], 2), p["lcd"], p["unknown"])
            print("compare-cli %s %s: command line tp %.2f lcd %.2f unknown %d, API tp %.2f "
                  "lcd %.2f unknown %d" % ((os.path.basename(job["file"]), name) + cli + api),
                  file=sys.stderr)
            if abs(cli[0] - api[0]) > 0.005 or cli[1] != api[1] or cli[2] != api[2]:
                die("OSACA's command line and its API disagree on %s (%s model)" % (
                    job["file"], name))

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, k in enumerate(index):
            text = open(jobs[n]["file"]).read()
            row = {"kernel": k["kernel"], "isa": k["isa"], "file": k["file"], "measured": None,
                   "measure_note": ""}
            notes = []
            for name in MODELS:
                p = predictions[name][n]
                if "error" in p:
                    row[name] = row[name + "_tp"] = row[name + "_lcd"] = None
                    # The error of the syntax OSACA detected comes first.
                    note = "OSACA cannot analyse it: " + p["error"].split("; ")[0].replace("\\t", " ")
                    if note not in notes:
                        notes.append(note)
                    continue
                row[name] = max(p["tp"], p["lcd"])
                row[name + "_tp"], row[name + "_lcd"] = p["tp"], p["lcd"]
                if p["unknown"]:
                    notes.append("%s: %d unknown" % (name, p["unknown"]))
                if p["lcd_timed_out"]:
                    notes.append("%s: LCD search timed out" % name)
            m = predictions["mca"][n]
            row["mca"] = m.get("cycles")
            if "error" in m and mca_why is None:
                notes.append("llvm-mca: " + m["error"])
            if measured is not None:
                row["measured"], row["measure_note"] = measured.get(
                    k["file"], (None, "not in " + os.path.basename(a.reuse_measured)))
            elif not_read(k) is not None:
                row["measure_note"] = "not assembled: " + not_read(k)
            else:
                src, rewritten = man_source(text)
                if rewritten:
                    # Not the loop gcc wrote: its time is not the loop's.
                    row["measure_note"] = "not timed: lines of the loop rewritten for winic's " \
                        "assembler: " + "; ".join(rewritten)
                    rows.append(dict(row, latency_bound=latency_bound(k, row),
                                     note="; ".join(notes + [row["measure_note"]])))
                    continue
                p = os.path.join(tmp, k["file"])
                open(p, "w").write(align_marked_loops(src, k["arch"], k["loop"]))
                small, large, note = man_pair(winic, p, k["init"])
                retimed = False
                per_trip = lambda s, l: (l - s) / (k["trips_large"] - k["trips_small"])
                if small is not None and faster_than_chain(
                        dict(row, measured=per_trip(small, large))):
                    # Faster than the loop's own chain: a run of one of
                    # the functions in its slow mode (on the Zen 3 guest
                    # each took about twice its time in some runs, as
                    # the process's memory fell), and too few runs to
                    # see the fast one. Each keeps its fastest of twice
                    # the runs.
                    again = man_pair(winic, p, k["init"])
                    if again[0] is not None:
                        small, large = min(small, again[0]), min(large, again[1])
                        note = (note or again[2]) and "NOISY"
                        retimed = True
                if small is None:
                    row["measure_note"] = "MAN: " + note
                else:
                    row["measured"] = per_trip(small, large)
                    if note:
                        row["measure_note"] = "noisy"
                    if retimed:
                        row["measure_note"] = ", ".join(
                            x for x in (row["measure_note"], "timed twice: faster than its chain")
                            if x)
            if row["measure_note"]:
                notes.append(row["measure_note"])
            row["latency_bound"] = latency_bound(k, row)
            if faster_than_chain(row):
                notes.append("faster than its chain (exported LCD %.2f)" % row["exported_lcd"])
            row["note"] = "; ".join(notes)
            rows.append(row)
            print("%-14s %-6s measured %s  shipped %s (tp %s, lcd %s)  exported %s (tp %s, lcd %s)  "
                  "no base %s (tp %s, lcd %s)  llvm-mca %s  %s" % (
                      k["kernel"], k["isa"], fmt(row["measured"]), fmt(row["shipped"]),
                      fmt(row["shipped_tp"]), fmt(row["shipped_lcd"]), fmt(row["exported"]),
                      fmt(row["exported_tp"]), fmt(row["exported_lcd"]), fmt(row["nobase"]),
                      fmt(row["nobase_tp"]), fmt(row["nobase_lcd"]), fmt(row["mca"]),
                      row["note"]),
                  file=sys.stderr)
    if a.measured:
        write_measured(a.measured, cpu, rows)
        print("measurements written to %s" % a.measured, file=sys.stderr)
    txt, md, summary = table(rows)
    if mca_why is None:
        summary.insert(0, "llvm-mca: `%s -mcpu=%s -iterations=%d`, cycles per iteration = Total "
                       "Cycles / Iterations" % (os.path.basename(mca), mcpu, MCA_ITERATIONS))
    else:
        summary.insert(0, "llvm-mca: not run (%s)" % mca_why)
    if predicted:
        dbs = " ".join(os.path.basename(d) for d in a.db)
        title = ("Cycles per iteration of the marked loop on %s; OSACA %s `--arch %s`, "
                 "shipped `%s`, `winic export --osaca %s --base %s%s`, and without a base "
                 "(`winic export --osaca %s`: the ports `winic ports -o` inferred where the "
                 "database has them)." % (
                     cpu_text(cpu), osaca["version"], arch, base, dbs, base,
                     " --isa-out isa/x86.yml" if isa else "", dbs))
    else:
        title = ("Cycles per iteration of the marked loop on %s; OSACA 0.7.1 reads no %s "
                 "code: measured only." % (cpu_text(cpu), a.target))
    if runner:
        title += " The %s kernels ran under `%s`: their timings mean nothing." % (
            a.target, a.runner)
    print(title)
    print(txt)
    print("\n".join(summary))
    with open(a.out, "w") as f:
        f.write(title + "\n\n" + md + "\n\n" + "\n".join("- " + s for s in summary) + "\n")
    print("table written to %s" % a.out, file=sys.stderr)
    if home:
        shutil.rmtree(home)


if __name__ == "__main__":
    main()
