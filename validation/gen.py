#!/usr/bin/env python3
"""Compile the validation kernels (validation/kernels/*.c) with gcc into
assembly (x86 in Intel syntax, three vector widths; AArch64 with NEON and
RISC-V RV64GC from the cross compilers) with OSACA's markers around the
measured loop, and
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
# The suites: the C files of each and where their assembly goes. `kernels`
# is the project's own; `lfk` the Livermore loops (validation/lfk/README.md),
# compiled in the same frame (kernels/bench.h).
SUITES = {"kernels": (KERNELS, os.path.join(HERE, "asm")),
          "lfk": (os.path.join(HERE, "lfk"), os.path.join(HERE, "asm-lfk"))}

# The variants: for x86, what a user of each vector width passes to gcc; for
# AArch64 and RISC-V, the base vector ISA every core of the arch has (NEON;
# RV64GC, whose gcc 12 does not vectorize) and the cross gcc that makes it.
VARIANTS = {
    "sse": ("x86_64", ["-msse4.2", "-mno-avx"]),
    "avx2": ("x86_64", ["-mavx2", "-mfma"]),
    "avx512": ("x86_64", ["-mavx512f", "-mavx512vl", "-mavx512bw", "-mavx512dq", "-mfma",
                          "-mprefer-vector-width=512"]),
    "neon": ("aarch64", ["-march=armv8.2-a"]),
    "rv64gc": ("riscv64", ["-march=rv64gc", "-mabi=lp64d"]),
}
COMMON = ["-O3", "-fno-unroll-loops", "-fno-asynchronous-unwind-tables", "-fno-pic", "-S"]
DEFAULT_SIZES = (256, 1024)
# A reduction's chain lets the core run ahead into the next call (or row)
# by as many instructions as its out-of-order window holds (512 ROB entries
# on Golden Cove, 320 on Zen 4). That overlap cancels out of the difference
# bench_large - bench_small only when a call's loop is longer than the
# window at both sizes; at 16 trips of 19 instructions it is not, and the
# loop looked faster than its own add chain. So a reduction's loop runs at
# least this many instructions per row at the small size.
MIN_ROW_INSTRUCTIONS = 1024


class Arch:
    """What gen.py reads and writes differently per arch: the gcc, its
    flags, the comment, OSACA's markers (x86: as GNU as reads them in Intel
    syntax; OSACA 0.7.1's Intel parser does not find them, its own Intel
    marker `movl ebx, 111` parses as a memory operand, so
    scripts/validate.py hands OSACA the lines between them with --lines;
    AArch64: OSACA's `mov x1, #111` and its byte marker; RISC-V, which
    OSACA 0.7.1 does not read: the tag comments only), and how a loop's
    conditional branch back, its memory operands and register steps look."""

    def __init__(self, name, gcc, flags, comment, start, end, branch, narrow, vector):
        self.name, self.gcc, self.flags, self.comment = name, gcc, flags, comment
        self.start, self.end = start, end
        self.branch = re.compile(branch)  # a conditional branch; group 1 its .L target
        self.narrow = narrow  # [(narrow register regex, its wide register)]
        self.vector = vector  # [(register regex, bytes)]

    def wide(self, r):
        """A register by its full name: a narrow one steps as its wide one."""
        for pattern, repl in self.narrow:
            r = re.sub(pattern, repl, r)
        return r


ARCHES = {
    "x86_64": Arch("x86_64", "gcc", ["-masm=intel", "-fcf-protection=none"], "#",
                   ["mov ebx, 111", ".byte 100,103,144"], ["mov ebx, 222", ".byte 100,103,144"],
                   r"^j(?!mp)[a-z]+\s+(\.L\w+)$",
                   [(r"^e(\w\w)$", r"r\1"), (r"^(r\d+)d$", r"\1")],
                   [(r"\bxmm\d+", 16), (r"\bymm\d+", 32), (r"\bzmm\d+", 64)]),
    "aarch64": Arch("aarch64", "aarch64-linux-gnu-gcc", ["-fno-unwind-tables"], "//",
                    ["mov x1, #111", ".byte 213,3,32,31"], ["mov x1, #222", ".byte 213,3,32,31"],
                    r"^(?:b\.?(?:eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)|cbn?z\s+\w+,"
                    r"|tbn?z\s+\w+,\s*#?\d+,)\s*(\.L\w+)$",
                    [(r"^w(\d+)$", r"x\1")], [(r"\bq\d+|\bv\d+\.\d*[bhsd]\b", 16)]),
    "riscv64": Arch("riscv64", "riscv64-linux-gnu-gcc", ["-fno-unwind-tables"], "#", [], [],
                    r"^b(?:eq|ne|lt|ge|gt|le)u?z?\s+(?:\w+,\s*)+(\.L\w+)$", [], []),
}
START_TAG = "OSACA START MARKER"
END_TAG = "OSACA END MARKER"


class GenError(Exception):
    pass


def meta(src):
    """The `// key: value` lines of a kernel's header comment."""
    m = {}
    for line in open(src):
        g = re.match(r"//\s*([\w-]+):\s*(.*)", line)
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


def instr(line, arch):
    s = line.split(arch.comment)[0].strip()
    if not s or s.endswith(":") or s.startswith("."):
        return None
    return s


def loops(lines, first, last, arch):
    """Innermost loops in lines[first..last]: (label line, branch line)."""
    labels = {}
    found = []
    for i in range(first, last + 1):
        g = re.match(r"^(\.L\w+):", lines[i])
        if g:
            labels[g.group(1)] = i
        s = instr(lines[i], arch)
        if s:
            g = arch.branch.match(s)
            if g and g.group(1) in labels:
                found.append((labels[g.group(1)], i))
    return [(a, b) for a, b in found
            if not any(a < c and d <= b and (c, d) != (a, b) for c, d in found)]


def body(lines, loop, arch):
    return [s for s in (instr(l, arch) for l in lines[loop[0]:loop[1] + 1]) if s]


def width(ins, arch):
    w = 1
    for reg, bits in arch.vector:
        if any(re.search(reg, s) for s in ins):
            w = max(w, bits)
    return w


def packed(ins, arch):
    if arch.name == "x86_64":
        return sum(1 for s in ins
                   if re.match(r"v?\w+p[sd]\b|v?p[a-z]+|vgather|vbroadcast", s.split()[0]))
    return sum(1 for s in ins if any(re.search(reg, s) for reg, _ in arch.vector))


def choose(lines, fn, arch):
    cands = loops(lines, *fn, arch)
    if not cands:
        raise GenError("no loop")

    def rank(lp):
        b = body(lines, lp, arch)
        return step_bytes(b, arch), width(b, arch), packed(b, arch), len(b), -lp[0]

    return max(cands, key=rank)


def steps(ins, arch):
    """{register: bytes it advances per iteration}, from the adds and
    subtracts of a constant (x86 also inc/dec and lea, AArch64 also a
    post- or pre-indexed address), a narrow register named as its wide
    one."""
    out = {}

    def add(r, k):
        r = arch.wide(r)
        out[r] = out.get(r, 0) + k

    for s in ins:
        g = re.match(r"^(add|sub|addi)\s+(\w+),\s*(?:(\w+),\s*)?#?(-?\d+)$", s)
        if g and (g.group(3) is None or g.group(3) == g.group(2)):
            k = int(g.group(4))
            add(g.group(2), -k if g.group(1) == "sub" else k)
        g = re.match(r"^(inc|dec)\s+(\w+)$", s)
        if g and arch.name == "x86_64":
            add(g.group(2), 1 if g.group(1) == "inc" else -1)
        g = re.match(r"^lea\s+(\w+),\s*\[(\w+)([+-]\d+)\]$", s)
        if g and g.group(1) == g.group(2):
            add(g.group(1), int(g.group(3)))
        g = re.search(r"\[(\w+)\],\s*#?(-?\d+)$|\[(\w+),\s*#?(-?\d+)\]!$", s)
        if g and arch.name == "aarch64":
            add(g.group(1) or g.group(3), int(g.group(2) or g.group(4)))
    # RISC-V forms an address as a sum first (`add a4, a7, a5`, then
    # `fld fa4, 0(a4)`): the sum steps as its stepping term.
    for s in ins:
        g = re.match(r"^add\s+(\w+),\s*(\w+),\s*(\w+)$", s)
        if g and arch.name == "riscv64" and g.group(1) not in out:
            k = [out[r] for r in g.group(2, 3) if r in out and r != g.group(1)]
            if len(k) == 1:
                out[g.group(1)] = k[0]
    return out


def addresses(s, arch):
    """The (register, scale) terms of each memory operand of an instruction."""
    if arch.name == "riscv64":
        return [[(r, 1)] for r in re.findall(r"-?\d*\((\w+)\)", s)]
    out = []
    for addr in re.findall(r"\[([^\]]*)\]", s):
        terms = []
        if arch.name == "aarch64":  # [base], [base, off], [base, index{, lsl|sxtw|uxtw s}]
            parts = [x.strip() for x in addr.split(",")]
            terms.append((parts[0], 1))
            if len(parts) > 1 and re.match(r"^[xw]\d+$", parts[1]):
                shift = re.match(r"^\w+\s+#?(\d+)$", parts[2]) if len(parts) > 2 else None
                terms.append((parts[1], 1 << int(shift.group(1)) if shift else 1))
        else:
            for term in re.split(r"\+|-", addr.replace(" ", "")):
                g = re.match(r"^(\w+)(?:\*(\d))?$", term)
                if g:
                    terms.append((g.group(1), int(g.group(2) or 1)))
        out.append(terms)
    return out


def step_bytes(ins, arch):
    """The largest number of bytes a memory operand's address advances per
    iteration, from the steps of the registers it uses."""
    st = steps(ins, arch)
    best = 0
    for s in ins:
        for terms in addresses(s, arch):
            for r, scale in terms:
                if arch.wide(r) in st:
                    best = max(best, abs(st[arch.wide(r)]) * scale)
    return best


def mnemonics(ins):
    return [s.split()[0] for s in ins]


def compile_one(src, variant, gcc):
    """The marked assembly of one kernel in one variant and its
    kernels.json entry."""
    arch = ARCHES[VARIANTS[variant][0]]
    m = meta(src)
    small, large = (int(x) for x in m.get("sizes", "%d %d" % DEFAULT_SIZES).split())
    # `// cflags:` for every arch, `// cflags-x86_64:` (and so on) for one.
    flags = (COMMON + arch.flags + VARIANTS[variant][1] + m.get("cflags", "").split()
             + m.get("cflags-" + arch.name, "").split()
             + ["-DN_SMALL=%d" % small, "-DN_LARGE=%d" % large, "-I", KERNELS])
    cmd = [gcc] + flags + [src, "-o", "-"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise GenError("gcc failed:\n" + r.stderr)
    text = r.stdout
    if re.search(r"\.rodata|\.LC\d|\b(call|bl)\b", text):
        raise GenError("uses .rodata or a call (winic's assembler reads code only): "
                       "pass constants through opaque_d/opaque_l")
    lines = text.splitlines()
    fns = functions(lines)
    lp = choose(lines, fns["bench_large"], arch)
    twin = choose(lines, fns["bench_small"], arch)
    ins = body(lines, lp, arch)
    if mnemonics(ins) != mnemonics(body(lines, twin, arch)):
        raise GenError("the loops of bench_small and bench_large differ:\n  %s\n  %s" % (
            mnemonics(ins), mnemonics(body(lines, twin, arch))))
    elem = int(m["elem"])
    sb = step_bytes(ins, arch)
    if sb == 0 or sb % elem:
        raise GenError("cannot tell elements per iteration (step %d bytes, elem %d)" % (sb, elem))
    vf = sb // elem
    rows = int(m.get("rows", "1"))
    row = (small // vf) * len(ins)
    if m.get("reduction") == "yes" and row < MIN_ROW_INSTRUCTIONS:
        raise GenError("a row at the small size runs %d instructions (%d trips of %d), fewer than "
                       "%d: the next row would overlap its chain; raise `// sizes:`" % (
                           row, small // vf, len(ins), MIN_ROW_INSTRUCTIONS))
    label = re.match(r"^(\.L\w+):", lines[lp[0]]).group(1)

    def tags(markers, tag):
        return ["\t%s\t%s %s" % (x, arch.comment, tag) for x in markers] or [
            "\t%s %s" % (arch.comment, tag)]

    marked = (lines[:lp[0]] + tags(arch.start, START_TAG) + lines[lp[0]:lp[1] + 1]
              + tags(arch.end, END_TAG) + lines[lp[1] + 1:])
    gccv = subprocess.run([gcc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    c = arch.comment
    head = ["%s generated by validation/gen.py from validation/%s; do not edit" % (
                c, os.path.relpath(src, HERE)),
            "%s %s" % (c, gccv),
            "%s %s %s" % (c, os.path.basename(gcc),
                          " ".join(f for f in flags if f not in ("-I", KERNELS)))]
    name = os.path.basename(src)[:-2]
    info = {
        "kernel": name, "isa": variant, "arch": arch.name,
        "file": "%s.%s.s" % (name, variant),
        "what": m.get("what", open(src).readline().lstrip("/ ").strip()),
        "loop": label, "instructions": len(ins), "elements_per_iteration": vf,
        "rows": rows, "n_small": small, "n_large": large,
        "trips_small": rows * (small // vf), "trips_large": rows * (large // vf),
        "init": m.get("init"),
        "gather": any(re.match(r"v?p?gather", s) for s in ins),
        "reduction": m.get("reduction") == "yes",
    }
    return "\n".join(head + marked) + "\n", info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for arch in ARCHES.values():
        ap.add_argument("--gcc-" + arch.name.replace("_", "-"), dest=arch.name, default=arch.gcc,
                        metavar="GCC", help="the gcc for %s (default %s)" % (arch.name, arch.gcc))
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="which variants to compile (default all: %(default)s)")
    ap.add_argument("--suite", default="kernels", choices=sorted(SUITES),
                    help="which loops: the project's own (kernels, the default) or the "
                    "Livermore loops (lfk)")
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed files instead of writing them")
    a = ap.parse_args()
    variants = a.variants.split(",")
    for v in variants:
        if v not in VARIANTS:
            sys.exit("gen.py: no variant `%s`: one of %s" % (v, ", ".join(VARIANTS)))
        gcc = getattr(a, VARIANTS[v][0])
        if shutil.which(gcc) is None:
            sys.exit("gen.py: %s not found, which compiles the %s variant: install it "
                     "(apt-get install gcc, or scripts/setup-cross.sh for the cross compilers) "
                     "or name one with --gcc-%s" % (gcc, v, VARIANTS[v][0].replace("_", "-")))
    src_dir, out = SUITES[a.suite]
    os.makedirs(out, exist_ok=True)
    jpath = os.path.join(out, "kernels.json")
    # Variants not compiled this time keep their committed entries.
    kept = [k for k in (json.load(open(jpath)) if os.path.exists(jpath) else [])
            if k["isa"] not in variants]
    index, bad = [], 0
    for name in sorted(os.listdir(src_dir)):
        if not name.endswith(".c"):
            continue
        for v in variants:
            # `// skip-avx512: why`: a variant this frame cannot run (gcc
            # makes it read constants from .rodata), said each time.
            why = meta(os.path.join(src_dir, name)).get("skip-" + v)
            if why:
                print("%-18s %-6s skipped: %s" % (name[:-2], v, why))
                continue
            try:
                text, info = compile_one(os.path.join(src_dir, name), v,
                                         getattr(a, VARIANTS[v][0]))
            except GenError as e:
                print("gen.py: %s (%s): %s" % (name, v, e), file=sys.stderr)
                bad += 1
                continue
            index.append(info)
            path = os.path.join(out, info["file"])
            if a.check:
                old = open(path).read() if os.path.exists(path) else None
                if old != text:
                    print("gen.py: %s differs from what this gcc makes" % path, file=sys.stderr)
                    bad += 1
            else:
                with open(path, "w") as f:
                    f.write(text)
            print("%-18s %-6s loop %-5s %2d instructions, %2d elements/iter, trips %d/%d%s" % (
                info["kernel"], v, info["loop"], info["instructions"],
                info["elements_per_iteration"], info["trips_small"], info["trips_large"],
                ", gather" if info["gather"] else ""))
    order = {v: i for i, v in enumerate(VARIANTS)}
    index = sorted(index + kept, key=lambda k: (k["kernel"], order[k["isa"]]))
    js = json.dumps(index, indent=1) + "\n"
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
