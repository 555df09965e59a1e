#!/usr/bin/env python3
"""Compile the validation kernels (validation/kernels/*.c) with gcc into
Intel-syntax assembly with OSACA's markers around the measured loop, and
describe each in validation/asm/kernels.json. The output is committed, so
that the validation does not depend on the gcc at hand; run this only to
regenerate it (`python3 validation/gen.py`), or with --check to see that
the committed files are what this gcc makes of the sources.

Each kernel file compiles to two functions, bench_small and bench_large
(kernels/bench.h). The measured loop is the hot innermost loop of
bench_large: among its innermost loops (a label and a conditional jump
back to it, no other such loop inside), the one whose addresses advance
the most bytes per iteration (the main loop, not a remainder loop), then
the widest vector registers, the most packed instructions. Its twin in bench_small
must have the same instructions. Elements per iteration come from the
loop's pointer or index step: the largest number of bytes a memory
operand's address advances per iteration, divided by the kernel's element
size (`// elem:` in the C file); a loop without such a step is an error.
`// reduction: yes` marks a loop that carries one accumulator gcc may not
reassociate (kernels.json's `reduction`): it is latency-bound by
construction, and scripts/validate.py judges its prediction as such.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels")
OUT = os.path.join(HERE, "asm")

# The three x86 variants: what a user of each vector width passes to gcc.
ISAS = {
    "sse": ["-msse4.2", "-mno-avx"],
    "avx2": ["-mavx2", "-mfma"],
    "avx512": ["-mavx512f", "-mavx512vl", "-mavx512bw", "-mavx512dq", "-mfma",
               "-mprefer-vector-width=512"],
}
COMMON = ["-O3", "-fno-unroll-loops", "-masm=intel", "-fno-asynchronous-unwind-tables",
          "-fcf-protection=none", "-fno-pic", "-S"]
DEFAULT_SIZES = (256, 1024)

# OSACA's byte markers, as GNU as reads them in Intel syntax. OSACA 0.7.1's
# Intel parser does not find them (its own Intel marker is `movl ebx, 111`,
# which it parses as a memory operand); scripts/validate.py hands OSACA the
# lines between them with --lines.
START = ["mov ebx, 111", ".byte 100,103,144"]
END = ["mov ebx, 222", ".byte 100,103,144"]
START_TAG = "# OSACA START MARKER"
END_TAG = "# OSACA END MARKER"


class GenError(Exception):
    pass


def meta(src):
    """The `// key: value` lines of a kernel's header comment."""
    m = {}
    for line in open(src):
        g = re.match(r"//\s*(\w+):\s*(.*)", line)
        if g:
            m[g.group(1)] = g.group(2).strip()
    return m


def functions(lines):
    """{name: (first, last)} line ranges of the functions gcc wrote."""
    out, cur = {}, None
    for i, l in enumerate(lines):
        g = re.match(r"^([A-Za-z_]\w*):", l)
        if g:
            cur = g.group(1)
            out[cur] = [i, i]
        g = re.match(r"^\s*\.size\s+(\w+),", l)
        if g and g.group(1) in out:
            out[g.group(1)][1] = i
    return {k: tuple(v) for k, v in out.items()}


def instr(line):
    s = line.split("#")[0].strip()
    if not s or s.endswith(":") or s.startswith("."):
        return None
    return s


JCC = re.compile(r"^j(?!mp)[a-z]+\s+(\.L\w+)$")


def loops(lines, first, last):
    """Innermost loops in lines[first..last]: (label line, jump line)."""
    labels = {}
    found = []
    for i in range(first, last + 1):
        g = re.match(r"^(\.L\w+):", lines[i])
        if g:
            labels[g.group(1)] = i
        s = instr(lines[i])
        if s:
            g = JCC.match(s)
            if g and g.group(1) in labels:
                found.append((labels[g.group(1)], i))
    return [(a, b) for a, b in found
            if not any(a < c and d <= b and (c, d) != (a, b) for c, d in found)]


def body(lines, loop):
    return [s for s in (instr(l) for l in lines[loop[0]:loop[1] + 1]) if s]


def width(ins):
    w = 1
    for reg, bits in (("xmm", 16), ("ymm", 32), ("zmm", 64)):
        if any(re.search(r"\b%s\d+" % reg, s) for s in ins):
            w = max(w, bits)
    return w


def packed(ins):
    return sum(1 for s in ins
               if re.match(r"v?\w+p[sd]\b|v?p[a-z]+|vgather|vbroadcast", s.split()[0]))


def choose(lines, fn):
    cands = loops(lines, *fn)
    if not cands:
        raise GenError("no loop")
    return max(cands, key=lambda lp: (step_bytes(body(lines, lp)), width(body(lines, lp)),
                                      packed(body(lines, lp)), len(body(lines, lp)), -lp[0]))


MEM = re.compile(r"\[([^\]]*)\]")


def step_bytes(ins):
    """The largest number of bytes a memory operand's address advances per
    iteration, from the add/sub/inc/dec/lea of the registers it uses."""
    steps = {}
    for s in ins:
        g = re.match(r"^(add|sub)\s+(\w+),\s*(-?\d+)$", s)
        if g:
            k = int(g.group(3))
            steps[g.group(2)] = steps.get(g.group(2), 0) + (k if g.group(1) == "add" else -k)
        g = re.match(r"^(inc|dec)\s+(\w+)$", s)
        if g:
            steps[g.group(2)] = steps.get(g.group(2), 0) + (1 if g.group(1) == "inc" else -1)
        g = re.match(r"^lea\s+(\w+),\s*\[(\w+)([+-]\d+)\]$", s)
        if g and g.group(1) == g.group(2):
            steps[g.group(1)] = steps.get(g.group(1), 0) + int(g.group(3))

    def full(r):  # a 32-bit register steps as its 64-bit one
        m = re.match(r"^e(\w\w)$", r)
        if m:
            return "r" + m.group(1)
        m = re.match(r"^(r\d+)d$", r)
        return m.group(1) if m else r

    steps = {full(r): v for r, v in steps.items()}
    best = 0
    for s in ins:
        for addr in MEM.findall(s):
            for term in re.split(r"\+|-", addr.replace(" ", "")):
                g = re.match(r"^(\w+)(?:\*(\d))?$", term)
                if g and full(g.group(1)) in steps:
                    best = max(best, abs(steps[full(g.group(1))]) * int(g.group(2) or 1))
    return best


def mnemonics(ins):
    return [s.split()[0] for s in ins]


def compile_one(src, isa, gcc):
    m = meta(src)
    small, large = (int(x) for x in m.get("sizes", "%d %d" % DEFAULT_SIZES).split())
    flags = COMMON + ISAS[isa] + m.get("cflags", "").split() + [
        "-DN_SMALL=%d" % small, "-DN_LARGE=%d" % large, "-I", KERNELS]
    cmd = [gcc] + flags + [src, "-o", "-"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise GenError("gcc failed:\n" + r.stderr)
    text = r.stdout
    if re.search(r"\.rodata|\.LC\d|\bcall\b", text):
        raise GenError("uses .rodata or a call (winic's assembler reads code only): "
                       "pass constants through opaque_d/opaque_l")
    lines = text.splitlines()
    fns = functions(lines)
    lp = choose(lines, fns["bench_large"])
    twin = choose(lines, fns["bench_small"])
    ins = body(lines, lp)
    if mnemonics(ins) != mnemonics(body(lines, twin)):
        raise GenError("the loops of bench_small and bench_large differ:\n  %s\n  %s" % (
            mnemonics(ins), mnemonics(body(lines, twin))))
    elem = int(m["elem"])
    sb = step_bytes(ins)
    if sb == 0 or sb % elem:
        raise GenError("cannot tell elements per iteration (step %d bytes, elem %d)" % (sb, elem))
    vf = sb // elem
    rows = int(m.get("rows", "1"))
    label = re.match(r"^(\.L\w+):", lines[lp[0]]).group(1)
    marked = (lines[:lp[0]] + ["\t%s\t%s" % (x, START_TAG) for x in START] + lines[lp[0]:lp[1] + 1]
              + ["\t%s\t%s" % (x, END_TAG) for x in END] + lines[lp[1] + 1:])
    gccv = subprocess.run([gcc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    head = ["# generated by validation/gen.py from validation/kernels/%s; do not edit" %
            os.path.basename(src),
            "# %s" % gccv,
            "# gcc %s" % " ".join(f for f in flags if f not in ("-I", KERNELS))]
    info = {
        "kernel": os.path.basename(src)[:-2], "isa": isa,
        "file": "%s.%s.s" % (os.path.basename(src)[:-2], isa),
        "what": m.get("what", open(src).readline().lstrip("/ ").strip()),
        "loop": label, "instructions": len(ins), "elements_per_iteration": vf,
        "rows": rows, "n_small": small, "n_large": large,
        "trips_small": rows * (small // vf), "trips_large": rows * (large // vf),
        "init": m.get("init"),
        "gather": any(s.startswith("vgather") or s.startswith("vpgather") for s in ins),
        "reduction": m.get("reduction") == "yes",
    }
    return "\n".join(head + marked) + "\n", info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gcc", default=os.environ.get("CC_VALIDATION", "gcc"))
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed files instead of writing them")
    a = ap.parse_args()
    if shutil.which(a.gcc) is None:
        sys.exit("gen.py: gcc not found (`%s`): install gcc (apt-get install gcc) "
                 "or name one with --gcc" % a.gcc)
    os.makedirs(OUT, exist_ok=True)
    index, bad = [], 0
    for name in sorted(os.listdir(KERNELS)):
        if not name.endswith(".c"):
            continue
        for isa in ISAS:
            try:
                text, info = compile_one(os.path.join(KERNELS, name), isa, a.gcc)
            except GenError as e:
                print("gen.py: %s (%s): %s" % (name, isa, e), file=sys.stderr)
                bad += 1
                continue
            index.append(info)
            path = os.path.join(OUT, info["file"])
            if a.check:
                old = open(path).read() if os.path.exists(path) else None
                if old != text:
                    print("gen.py: %s differs from what this gcc makes" % path, file=sys.stderr)
                    bad += 1
            else:
                with open(path, "w") as f:
                    f.write(text)
            print("%-14s %-6s loop %-5s %2d instructions, %2d elements/iter, trips %d/%d%s" % (
                info["kernel"], isa, info["loop"], info["instructions"],
                info["elements_per_iteration"], info["trips_small"], info["trips_large"],
                ", gather" if info["gather"] else ""))
    js = json.dumps(index, indent=1) + "\n"
    jpath = os.path.join(OUT, "kernels.json")
    if a.check:
        if not os.path.exists(jpath) or open(jpath).read() != js:
            print("gen.py: %s differs" % jpath, file=sys.stderr)
            bad += 1
    else:
        with open(jpath, "w") as f:
            f.write(js)
    if bad:
        sys.exit("gen.py: %d problem(s)" % bad)


if __name__ == "__main__":
    main()
