#!/usr/bin/env python3
"""Load an OSACA machine file that `winic export --osaca` wrote, as OSACA
does, and print OSACA's view of every form winic measured, as JSON.

Usage: osaca-check.py MACHINE_FILE

Run it with the python of a virtual environment that has OSACA
(`pip install osaca==0.7.1`). The file is loaded with
`MachineModel(path_to_yaml=...)`, which fails on a file OSACA cannot use.
Then every form with an `llvm_name` is looked up the way OSACA's analysis
does (`get_instruction(name, operands)`, the first form that matches) and
its values are printed: {"forms": N, "winic": {LLVM name: {"name",
"latency", "throughput", "bound"}}}, where bound is the largest port load
of its port pressure as OSACA averages it (null without ports). A form
that OSACA finds under another form's values shows those values, so a
caller comparing them with winic's database sees the mismatch.
"""
import json
import sys

import ruamel.yaml
from osaca.semantics import MachineModel


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    model = MachineModel(path_to_yaml=path)
    with open(path, encoding="utf8") as f:
        raw = ruamel.yaml.YAML(typ="safe").load(f)
    seen = {}
    for entry in raw["instruction_forms"]:
        llvm = entry.get("llvm_name")
        if llvm is None:
            continue
        operands = []
        for o in entry.get("operands") or []:
            model.operand_to_class(dict(o), operands)
        found = model.get_instruction(entry["name"], operands)
        if found is None:
            seen.setdefault(llvm, []).append({"name": entry["name"], "missing": True})
            continue
        bound = None
        if found.port_pressure:
            bound = max(model.average_port_pressure(found.port_pressure))
        seen.setdefault(llvm, []).append(
            {
                "name": entry["name"],
                "latency": found.latency,
                "throughput": found.throughput,
                "bound": bound,
            }
        )
    forms = sum(len(v) for v in model["instruction_forms_dict"].values())
    json.dump({"forms": forms, "isa": model.get_ISA(), "winic": seen}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
