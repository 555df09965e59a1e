#!/usr/bin/env python3
"""Predict many loops with one OSACA machine model, in one process, as
`osaca --arch ARCH --ignore-unknown --lines A-B FILE` predicts each, and
print the figures as JSON.

Usage: osaca-predict.py --arch ARCH [--model MACHINE_FILE] [--isa ISA_FILE] JOBS.json

JOBS.json is a list of {"file": PATH, "lines": [A, B]}: the lines of the
marked loop, 1-based and inclusive. The model is OSACA's own file of ARCH
(its data directory, or ~/.osaca/data/), or MACHINE_FILE when given (a
file `winic export --osaca` wrote); it is loaded once, and every loop is
analysed with it. The operand access (which operands a form reads and
writes) is OSACA's ISA file, or ISA_FILE (`winic export --isa-out`). Standard output is one JSON list, a row per job in
order: {"file", "tp", "lcd", "cp", "unknown", "lcd_timed_out"}, where tp
is the largest port pressure of OSACA's totals row (the throughput bound),
lcd the longest loop-carried dependency (0 when there is none), cp the
critical path and unknown the instructions the model has no throughput
for (`X` in OSACA's table; --ignore-unknown leaves them out of tp). A
loop OSACA cannot analyse (e.g. its Intel parser reads no `{k1}{z}`) gets
{"file", "error"} instead.

The steps are those of osaca.osaca.inspect in OSACA 0.7.1: parse with the
detected syntax, normalize, add semantics, two rounds of optimal port
assignment, the kernel's dependency graph with the CLI's defaults (an LCD
timeout of 10 s, no flag dependencies). Run it with the python of a
virtual environment that has osaca==0.7.1.
"""
import argparse
import json
import sys

from osaca.osaca import get_asm_parser, get_line_range
from osaca.parser import BaseParser
from osaca.semantics import INSTR_FLAGS, ArchSemantics, KernelDG, MachineModel


def parse(code, arch):
    """The parsed file and its parser, the syntax OSACA detects tried
    first, as the CLI does when no --syntax is given."""
    _, detected = BaseParser.detect_ISA(code)
    if MachineModel.get_isa_for_arch(arch) != "x86":
        syntaxes = [None]
    else:
        syntaxes = [detected] + [s for s in ("ATT", "INTEL") if s != detected]
    errors = []
    for syntax in syntaxes:
        parser = get_asm_parser(arch, syntax)
        try:
            return parser, parser.parse_file(code)
        except Exception as e:  # OSACA raises plain exceptions on a wrong syntax
            errors.append("%s: %s" % (syntax, e))
    raise SyntaxError("; ".join(errors))


def predict(model, isa, arch, path, lines):
    with open(path, encoding="utf8") as f:
        code = f.read()
    parser, parsed = parse(code, arch)
    wanted = set(get_line_range("%d-%d" % tuple(lines)))
    kernel = [line for line in parsed if line.line_number in wanted]
    semantics = ArchSemantics(parser, model, path_to_yaml=isa)
    semantics.normalize_instruction_forms(kernel)
    semantics.add_semantics(kernel)
    semantics.assign_optimal_throughput(kernel)
    semantics.assign_optimal_throughput(kernel)
    dg = KernelDG(kernel, parser, model, semantics, 10, False)
    tp_sum = ArchSemantics.get_throughput_sum(kernel) or kernel[0].port_pressure
    deps = dg.get_loopcarried_dependencies()
    lcd = max((d["latency"] for d in deps.values()), default=0.0)
    return {
        "file": path,
        "tp": max(tp_sum, default=0.0),
        "lcd": float(lcd),
        "cp": float(sum(x.latency_cp for x in dg.get_critical_path())),
        "unknown": sum(1 for x in kernel if INSTR_FLAGS.TP_UNKWN in x.flags),
        "lcd_timed_out": bool(dg.timed_out),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", required=True, help="OSACA's arch code, e.g. SPR or ZEN4")
    ap.add_argument("--model", help="a machine file to use instead of OSACA's own for ARCH")
    ap.add_argument("--isa", help="an ISA file (which operands a form reads and writes) to use "
                    "instead of OSACA's isa/x86.yml or isa/aarch64.yml (`winic export --isa-out`)")
    ap.add_argument("jobs", help="JSON list of {file, lines: [A, B]}")
    a = ap.parse_args()
    with open(a.jobs, encoding="utf8") as f:
        jobs = json.load(f)
    if a.model:
        model = MachineModel(path_to_yaml=a.model)
    else:
        model = MachineModel(arch=a.arch)
    rows = []
    for j in jobs:
        try:
            rows.append(predict(model, a.isa, a.arch, j["file"], j["lines"]))
        except Exception as e:  # a loop OSACA cannot read is a row, not the end of the run
            rows.append({"file": j["file"], "error": str(e).strip().splitlines()[0][:300]})
    json.dump(rows, sys.stdout)
    print()


if __name__ == "__main__":
    main()
