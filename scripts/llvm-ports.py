#!/usr/bin/env python3
"""llvm-ports.py — LLVM's port model of a core as an OSACA machine file.

`winic ports --compare FILE` counts the forms its inferred mapping puts on
the ports a machine file gives them. OSACA's shipped files are one
reference; LLVM's scheduling models (what llvm-mca predicts with) are the
other. This script writes LLVM's model of a core in OSACA's format, for
the forms of a `winic export --osaca` file (without --base: every form
winic measured, with its OSACA name, operands and `llvm_name`):

  winic export --osaca winic.yaml -o winic-osaca.yml
  scripts/llvm-ports.py --mcpu znver3 winic-osaca.yml -o llvm-znver3.yml
  winic ports --compare zen3.yml --compare llvm-znver3.yml

Each form's example instruction (`winic show NAME`) runs through
`llvm-mca -mcpu=CPU` alone, in a code region of its own. Its resources
are those with pressure; a form LLVM models as one micro-op whose
pressure sums to one cycle becomes `port_pressure: [[1, [resources]]]`
(what `--compare` compares), any other `[[cycles, [resources]]]` (not
compared). A resource group (Zen 3's `Zn3FPVAdd0123`) shows as its units,
which llvm-mca spreads the pressure over. Forms llvm-mca cannot read for
that CPU (AVX-512 on znver3) or has no scheduling data for are left out,
and counted.

Needs llvm-mca (Debian: llvm-19) on the machine that runs this script, not
on the one that measured: run it wherever the export is.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

# OSACA's isa -> winic's arch, which is also LLVM's triple's arch.
ARCH = {"x86": "x86_64", "aarch64": "aarch64", "riscv": "riscv64"}


def fail(msg):
    print(f"llvm-ports: error: {msg}", file=sys.stderr)
    sys.exit(2)


def examples(winic, arch, names):
    """Each LLVM name's checked example instruction, from `winic show`."""
    out = {}
    for n in names:
        r = subprocess.run([winic, "show", "--arch", arch, n], capture_output=True, text=True)
        m = re.search(r"^\s*example:\s+(.*?)\s*$", r.stdout, re.M)
        if r.returncode == 0 and m and m.group(1) != "-":
            out[n] = m.group(1)
    return out


# Regions per llvm-mca run, and how long one run may take: a second, and
# a twentieth of a second per region (a region takes about a
# thousandth). llvm-mca-19 never returns on some forms
# (`-mcpu=sapphirerapids`: `vcvtne2ps2bf16`, `vcvtqq2ph`), so the regions
# go in chunks under that timeout, and a chunk that times out is split in
# eight until each form that hangs is alone and left out.
CHUNK = 128
SPLIT = 8


def timeout(regions):
    return 1.0 + 0.05 * regions


def run_mca(mca, mcpu, triple, syntax, regions):
    """llvm-mca's JSON report of `regions` (name -> one instruction), or None
    when it did not finish in time ([`timeout`])."""
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write(syntax)
        for name, text in regions.items():
            f.write(f"# LLVM-MCA-BEGIN {name}\n{text}\n# LLVM-MCA-END\n")
        path = f.name
    try:
        r = subprocess.run(
            [mca, f"-mtriple={triple}", f"-mcpu={mcpu}", "-iterations=100", "--json",
             "--resource-pressure", "--instruction-info", "--timeline=false",
             "--skip-unsupported-instructions=any", path],
            capture_output=True, text=True, timeout=timeout(len(regions)))
    except subprocess.TimeoutExpired:
        return None
    finally:
        os.unlink(path)
    if "is not a recognized processor" in r.stderr:
        fail(f"--mcpu {mcpu}: LLVM does not know that core (`{mca} -mtriple={triple} -mcpu=help` "
             f"lists those it knows)")
    if r.returncode != 0 or not r.stdout.strip():
        fail(f"{mca} -mcpu={mcpu} failed: {r.stderr.strip()[:2000]}")
    return json.loads(r.stdout)


def resources_of(mca, mcpu, triple, syntax, regions):
    """llvm-mca's view of each region (name -> one instruction): its micro-ops
    and each resource's cycles, by region name; the resource labels; the
    names of regions llvm-mca hung on (left out)."""
    out, labels, hung = {}, [], []
    every = list(regions.items())
    todo = [dict(every[k:k + CHUNK]) for k in range(0, len(every), CHUNK)]
    done = 0
    while todo:
        chunk = todo.pop()
        data = run_mca(mca, mcpu, triple, syntax, chunk)
        if data is None:
            items = list(chunk.items())
            if len(items) == 1:
                hung.append(items[0][0])
                print(f"llvm-ports: llvm-mca did not finish {items[0][0]} (`{items[0][1]}`) "
                      f"within {timeout(1):.0f} s: left out", file=sys.stderr)
            else:
                step = -(-len(items) // SPLIT)
                todo += [dict(items[k:k + step]) for k in range(0, len(items), step)]
            continue
        done += len(chunk)
        print(f"llvm-ports: {done} of {len(regions)} forms through llvm-mca", file=sys.stderr)
        if not labels:
            # Units of a resource with several (Zn3FP45.0, .1) are numbered.
            names = [re.sub(r"\.[\x00-\x1f]$", "", n) for n in data["TargetInfo"]["Resources"]]
            labels = [n if names.count(n) == 1 else f"{n}{k - names.index(n)}"
                      for k, n in enumerate(names)]
        for region in data["CodeRegions"]:
            info = region.get("InstructionInfoView", {}).get("InstructionList", [])
            if len(info) != 1:
                continue
            used = {}
            for p in region["ResourcePressureView"]["ResourcePressureInfo"]:
                if p["InstructionIndex"] == 0 and p["ResourceUsage"] > 0:
                    k = p["ResourceIndex"]
                    used[k] = used.get(k, 0.0) + p["ResourceUsage"]
            out[region["Name"]] = (info[0]["NumMicroOpcodes"],
                                   {labels[k]: c for k, c in sorted(used.items())})
    return out, labels, hung


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("export", help="a `winic export --osaca` file (without --base)")
    ap.add_argument("-o", "--output", required=True, help="the machine file to write")
    ap.add_argument("--mcpu", required=True, help="LLVM's name of the core, e.g. znver3, znver4, sapphirerapids")
    ap.add_argument("--llvm-mca", default="llvm-mca-19", help="the llvm-mca to run (default: llvm-mca-19)")
    ap.add_argument("--winic", default="target/release/winic", help="the winic binary for examples")
    a = ap.parse_args()

    try:
        with open(a.export) as f:
            text = f.read()
        doc = yaml.safe_load(text)
    except (OSError, yaml.YAMLError) as e:
        fail(f"{a.export}: {e}")
    if not isinstance(doc, dict) or "instruction_forms" not in doc or "isa" not in doc:
        fail(f"{a.export}: no `isa` and `instruction_forms`: give the output of `winic export --osaca`")
    isa = str(doc["isa"]).lower()
    if isa not in ARCH:
        fail(f"{a.export}: isa `{isa}` (valid: {', '.join(ARCH)})")
    forms = [f for f in doc["instruction_forms"] if f.get("llvm_name")]
    if not forms:
        fail(f"{a.export}: no instruction form has an `llvm_name`: give the output of `winic export --osaca`")
    for tool in (a.llvm_mca, a.winic):
        if subprocess.run(["sh", "-c", f'command -v "{tool}"'], capture_output=True).returncode:
            fail(f"`{tool}` not found")

    names = sorted({f["llvm_name"] for f in forms})
    shown = examples(a.winic, ARCH[isa], names)
    syntax = ".intel_syntax noprefix\n" if isa == "x86" else ""
    seen, resources, hung = resources_of(a.llvm_mca, a.mcpu, ARCH[isa], syntax, shown)

    out_forms, one, other, missing = [], 0, 0, 0
    for f in forms:
        got = seen.get(f["llvm_name"])
        if got is None:
            missing += 1
            continue
        uops, used = got
        ports = list(used)
        cycles = round(sum(used.values()), 4)
        if uops == 1 and abs(cycles - 1.0) < 0.02:
            pp, one = [[1, ports]], one + 1
        else:
            pp, other = ([[cycles, ports]] if ports else []), other + 1
        out_forms.append({"name": f["name"], "operands": f.get("operands", []),
                          "llvm_name": f["llvm_name"], "uops": uops, "port_pressure": pp})
    header = {
        "osaca_version": doc.get("osaca_version", "0.7.1"),
        "micro_architecture": f"LLVM {a.mcpu} (llvm-mca's scheduling model, via winic's forms)",
        "arch_code": a.mcpu,
        "isa": doc["isa"],
        "ports": resources,
        "port_model_scheme": f"LLVM's {a.mcpu} resources, as llvm-mca reports their pressure",
    }
    with open(a.output, "w") as f:
        yaml.safe_dump(header, f, sort_keys=False, width=1000)
        f.write("instruction_forms:\n")
        body = yaml.safe_dump(out_forms, sort_keys=False, width=1000, default_flow_style=None)
        f.write("".join("  " + l + "\n" for l in body.splitlines()))
    print(f"llvm-ports: {len(out_forms)} of {len(forms)} forms with LLVM's {a.mcpu} resources "
          f"({one} as one micro-op on one cycle of ports, {other} otherwise); {missing} left out "
          f"({len(names) - len(shown)} names without an example, {len(hung)} llvm-mca did not "
          f"finish, the rest unreadable by llvm-mca for {a.mcpu} or without scheduling data) "
          f"-> {a.output}")


if __name__ == "__main__":
    main()
