#!/usr/bin/env python3
"""Coverage of x86 forms with memory operands (issue 27's figure): of the
forms winic skipped before it measured memory operands ("memory or
PC-relative operand": any operand of kind `mem`, `pcrel` or `ptr` in
isa-data/x86_64.json, and lea's address), those this host could run, and of them how many a
full TP run measured and how many have a sub-latency with a value in a
full LAT run.

  python3 scripts/memory-coverage.py report_TP_<time>.txt report_LAT_<time>.txt

A form counts as one this host could run unless TP skipped it for a
feature the CPU lacks or found no kernel because no x86-64 CPU runs it in
64-bit mode or the encoder has no APX (which this host lacks too), or
LLVM marks it `Not64BitMode` (`jcxz`, whatever TP said first). A second
line gives the figures without the forms only ring 0 runs ("privileged
(CPL 0 only)"): no user process runs them, winic's neither. The forms
without a value are listed by their first reason, most frequent first.
"""
import collections
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"^-----(\S+)-----$")
VALUE = re.compile(r"\[(?:[0-9.]+|\?);[0-9.]+\]")


def memory_forms():
    isa = json.load(open(os.path.join(ROOT, "isa-data", "x86_64.json")))
    memory = {name for name, t in isa["operand_types"].items()
              if t.get("kind") in ("mem", "pcrel", "ptr")
              or (t.get("kind") == "complex" and t.get("parser") == "Mem")}  # lea
    out = set()
    for i in isa["instructions"]:
        if any(o.get("type") in memory for o in i["ops"]) and "Not64BitMode" not in i.get("preds", []):
            out.add(i["name"])
    return out


def blocks(path):
    """Per form, the lines of all its blocks in a report (a form measured
    again, with a helper or a second time, has a later block)."""
    out, name = {}, None
    for line in open(path):
        m = BLOCK.match(line.rstrip("\n"))
        if m:
            name = m.group(1)
            out.setdefault(name, [])
        elif name:
            out[name].append(line.rstrip("\n"))
    return out


def valued(name, lines):
    """Whether a form's lines give it a value: its own line (`NAME [lo;hi]`,
    `NAME(a -> b) [lo;hi]`) with numbers."""
    return any(l.startswith("\t" + name) and VALUE.search(l) for l in lines)


def reason(lines):
    for l in lines:
        m = re.search(r"\[(SKIPPED|FAILED|NO KERNEL): ([^\]]*)", l)
        if m:
            return m.group(1) + ": " + re.sub(r"\b\d+(\.\d+)?\b", "N", m.group(2))[:90]
    return "no value"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tp, lat = blocks(sys.argv[1]), blocks(sys.argv[2])
    mem = memory_forms()
    lacking = re.compile(r"which this CPU lacks|unsupported: (APX|Not64BitMode)")
    runnable = sorted(f for f in mem if f in tp and not any(lacking.search(l) for l in tp[f][:2]))
    has_tp = [f for f in runnable if valued(f, tp[f])]
    has_lat = [f for f in runnable if valued(f, lat.get(f, []))]
    n = len(runnable)
    print("forms with a memory or PC-relative operand: %d; this host could run %d" % (len(mem), n))
    print("  TP:  %5d (%.1f%%)" % (len(has_tp), 100.0 * len(has_tp) / max(n, 1)))
    print("  LAT: %5d (%.1f%%)" % (len(has_lat), 100.0 * len(has_lat) / max(n, 1)))
    ring0 = {f for f in runnable if any("privileged (CPL 0 only)" in l for l in tp[f][:2])}
    user = n - len(ring0)
    print("without the %d forms only ring 0 runs: %d; TP %.1f%%, LAT %.1f%%" % (
        len(ring0), user,
        100.0 * len(set(has_tp) - ring0) / max(user, 1),
        100.0 * len(set(has_lat) - ring0) / max(user, 1)))
    for what, have, rep in (("TP", set(has_tp), tp), ("LAT", set(has_lat), lat)):
        why = collections.Counter(reason(rep.get(f, [])) for f in runnable if f not in have)
        print("without %s, by reason:" % what)
        for r, c in why.most_common(12):
            print("  %5d  %s" % (c, r))


if __name__ == "__main__":
    main()
