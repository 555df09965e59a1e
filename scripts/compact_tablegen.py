#!/usr/bin/env python3
"""Compact an `llvm-tblgen --dump-json` dump into winic's isa-data/<arch>.json.

This is the only code in winic that knows the shape of raw TableGen records.
It keeps what winic needs (instructions, operands, register classes, registers,
predicates, subtarget features, encodings) and resolves what TableGen leaves
symbolic:

* register-class membership, a set expression evaluated exactly as LLVM's
  SetTheory does (add, sub, and, shl, trunc, rotl, rotr, decimate,
  interleave, sequence) including RegisterTuples, whose synthesized registers
  (Q0_Q1, V8M2, ...) are added to the register table as TableGen's
  TupleExpander would;
* tied operands from `Constraints` (`$src1 = $dst`);
* implicit registers from `Defs`/`Uses`;
* register aliasing from `SubRegs` (the full transitive set);
* immediate widths, signedness and ranges where LLVM states them
  (`isInt<N>`, `isUInt<N>`, `OPERAND_SIMM12`, `isImmInRange<0,63>`, ...);
* predicates as boolean expressions over subtarget feature names;
* LLVM's opcode numbering (target-independent opcodes first in the order of
  TargetOpcodes.def, then pseudos, then the rest, each sorted by name).

Only the Python standard library is used. Output is deterministic: the same
dump gives the same bytes.

Usage: compact_tablegen.py --arch x86_64 --dump X86.json
                           --target-opcodes TargetOpcodes.def --out x86_64.json
"""

import argparse
import json
import re
import sys

TARGETS = {"x86_64": "X86", "aarch64": "AArch64", "riscv64": "RISCV"}

# Instruction flags kept (set means true). Unset tri-state bits (`?` in
# TableGen, null in the dump: LLVM infers them from patterns) are listed
# separately under "unknown" so that nobody mistakes them for false.
FLAGS = [
    "isPseudo", "isCodeGenOnly", "isAsmParserOnly", "isBranch",
    "isIndirectBranch", "isCall", "isReturn", "isTerminator", "isBarrier",
    "isTrap", "mayLoad", "mayStore", "hasSideEffects", "isMoveReg",
    "isMoveImm", "isCompare", "isCommutable", "isNotDuplicable",
    "mayRaiseFPException", "isPreISelOpcode", "isMeta",
]
# The arches whose InstAlias records winic's assembler reads (gcc writes
# AArch64's aliases; x86 and RISC-V read what gcc writes without them).
ALIAS_ARCHS = {"aarch64"}
TRISTATE = {"mayLoad", "mayStore", "hasSideEffects"}

# x86 encoding fields, by their X86Inst names, and the short keys we keep.
X86_DEF_FIELDS = {
    "Form": "form", "OpMap": "map", "OpPrefix": "prefix", "OpEnc": "openc",
    "OpSize": "opsize", "AdSize": "adsize", "ImmT": "immt",
    "explicitOpPrefix": "explicit_prefix", "FPForm": "fpform",
}
X86_BIT_FIELDS = {
    "hasREX_W": "rex_w", "hasVEX_4V": "vex_4v", "hasVEX_L": "vex_l",
    "ignoresVEX_L": "ignores_vex_l", "IgnoresW": "ignores_w",
    "hasEVEX_K": "evex_k", "hasEVEX_Z": "evex_z", "hasEVEX_L2": "evex_l2",
    "hasEVEX_B": "evex_b", "hasEVEX_RC": "evex_rc", "hasEVEX_NF": "evex_nf",
    "hasLockPrefix": "lock", "hasREPPrefix": "rep",
    "hasNoTrackPrefix": "notrack", "hasTwoConditionalOps": "two_cond_ops",
}


class CompactError(Exception):
    pass


def bits_value(bits):
    """Integer value of a fully-known TableGen `bits` list (index = bit)."""
    value = 0
    for i, b in enumerate(bits):
        if b is None or isinstance(b, dict):
            raise CompactError(f"bits not constant: {bits!r}")
        value |= (b & 1) << i
    return value


def def_name(v):
    if isinstance(v, dict) and v.get("kind") == "def":
        return v["def"]
    return None


class Dump:
    def __init__(self, records):
        self.r = records
        self.instanceof = records["!instanceof"]

    def isa(self, name, cls):
        rec = self.r.get(name)
        return rec is not None and cls in rec["!superclasses"]

    def of(self, cls):
        return self.instanceof.get(cls, [])


# --------------------------------------------------------------------------
# Registers and register classes (LLVM's SetTheory + TupleExpander)


class RegisterBank:
    def __init__(self, dump):
        self.d = dump
        self.regs = {}  # name -> compact entry
        self.cache = {}  # record name -> expanded list
        for name in dump.of("Register"):
            rec = dump.r[name]
            self.regs[name] = {
                "asm": rec.get("AsmName") or "",
                "alt": [a for a in rec.get("AltNames") or [] if a],
                "enc": bits_value(rec["HWEncoding"]),
                "sub": [def_name(s) for s in rec.get("SubRegs") or []],
            }

    def expand(self, name):
        """Expand a record that is a set by itself (class or tuple)."""
        if name in self.cache:
            return self.cache[name]
        rec = self.d.r[name]
        sc = rec["!superclasses"]
        if "RegisterClass" in sc:
            out = self.evaluate(rec["MemberList"])
        elif "RegisterTuples" in sc:
            out = self.expand_tuples(name, rec)
        else:
            return None
        self.cache[name] = out
        return out

    def evaluate(self, expr):
        out = []
        seen = set()

        def insert(items):
            for it in items:
                if it not in seen:
                    seen.add(it)
                    out.append(it)

        if isinstance(expr, dict) and expr.get("kind") == "def":
            res = self.expand(expr["def"])
            insert(res if res is not None else [expr["def"]])
        elif isinstance(expr, list):
            for e in expr:
                insert(self.evaluate(e))
        elif isinstance(expr, dict) and expr.get("kind") == "dag":
            insert(self.apply(expr))
        else:
            raise CompactError(f"invalid set element: {expr!r}")
        return out

    def apply(self, dag):
        op = dag["operator"]["def"]
        args = [a for a, _ in dag["args"]]
        text = dag.get("printable", op)
        if op == "add":
            return self.evaluate(args)
        if op == "sub":
            if len(args) < 2:
                raise CompactError(f"sub needs two arguments: {text}")
            minus = set(self.evaluate(args[1:]))
            return [x for x in self.evaluate(args[0]) if x not in minus]
        if op == "and":
            if len(args) != 2:
                raise CompactError(f"and needs two arguments: {text}")
            keep = set(self.evaluate(args[1]))
            return [x for x in self.evaluate(args[0]) if x in keep]
        if op in ("shl", "trunc", "rotl", "rotr", "decimate"):
            if len(args) != 2 or not isinstance(args[1], int):
                raise CompactError(f"{op} needs (set, int): {text}")
            s, n = self.evaluate(args[0]), args[1]
            if op == "shl":
                return s[n:] if n < len(s) else []
            if op == "trunc":
                return s[:n]
            if op in ("rotl", "rotr"):
                if not s:
                    return []
                n = -n if op == "rotr" else n
                n = n % len(s)
                return s[n:] + s[:n]
            if n <= 0:
                raise CompactError(f"decimate needs a positive stride: {text}")
            return s[::n]
        if op == "interleave":
            sets = [self.evaluate(a) for a in args]
            out = []
            for i in range(max((len(s) for s in sets), default=0)):
                out.extend(s[i] for s in sets if i < len(s))
            return out
        if op == "sequence":
            fmt, start, stop = args[0], args[1], args[2]
            step = args[3] if len(args) == 4 else 1
            step = step if start <= stop else -step
            out = []
            i = start
            while (step > 0 and i <= stop) or (step < 0 and i >= stop):
                name = fmt.replace("%u", str(i))
                if name not in self.d.r:
                    raise CompactError(f"no def named {name!r}: {text}")
                res = self.expand(name)
                out.extend(res if res is not None else [name])
                i += step
            return out
        raise CompactError(f"unknown set operator {op!r}: {text}")

    def expand_tuples(self, name, rec):
        lists = [self.evaluate(e) for e in rec["SubRegs"]]
        if len(lists) < 2:
            raise CompactError(f"{name}: tuples need at least 2 sub-registers")
        asm_names = rec.get("RegAsmNames") or []
        out = []
        for n in range(min(len(l) for l in lists)):
            parts = [l[n] for l in lists]
            tname = "_".join(parts)
            proto = self.regs[parts[0]]
            # TupleExpander: fields copied from the first register, SubRegs
            # replaced by the tuple, AsmName from RegAsmNames (or empty).
            self.regs[tname] = {
                "asm": asm_names[n] if n < len(asm_names) else "",
                "alt": list(proto["alt"]),
                "enc": proto["enc"],
                "sub": parts,
                "tuple": True,
            }
            out.append(tname)
        return out

    def aliases(self):
        """Transitive sub-registers of every register (its aliasing set)."""
        memo = {}

        def subs(r):
            if r not in memo:
                acc = set()
                for s in self.regs[r]["sub"]:
                    acc.add(s)
                    acc |= subs(s)
                memo[r] = acc
            return memo[r]

        return {r: sorted(subs(r)) for r in self.regs}


def vt_bits(d, name):
    rec = d.r.get(name)
    if rec is None:
        return 0
    if "ValueTypeByHwMode" in rec["!superclasses"]:
        return max((vt_bits(d, def_name(o)) for o in rec["Objects"]), default=0)
    return rec.get("Size") or 0


def regclass_bits(d, rec):
    if rec.get("Size"):
        return rec["Size"]
    return max((vt_bits(d, def_name(t)) for t in rec.get("RegTypes") or []), default=0)


# --------------------------------------------------------------------------
# Predicates and features


def feature_names(d):
    return {f: d.r[f]["Name"] for f in d.of("SubtargetFeature")}


def cond_from_dag(dag, feat):
    """AssemblerCondDag -> expression over feature names ('FeatureAll' is an
    assembler convenience on AArch64 and dropped)."""
    if isinstance(dag, dict) and dag.get("kind") == "def":
        return feat.get(dag["def"], dag["def"])
    op = dag["operator"]["def"]
    parts = []
    for a, _ in dag["args"]:
        if def_name(a) == "FeatureAll":
            continue
        if isinstance(a, dict) and a.get("kind") == "dag" and a["operator"]["def"] == "not":
            parts.append("!" + cond_from_dag(a["args"][0][0], feat))
        else:
            parts.append(cond_from_dag(a, feat))
    if not parts:
        return "true"
    if len(parts) == 1:
        return parts[0]
    joiner = " && " if op == "all_of" else " || "
    return "(" + joiner.join(parts) + ")"


def subtarget_getters(d):
    """Map `Subtarget->hasX()` getter names to feature names, as LLVM's
    SubtargetEmitter names them: a boolean feature with FieldName `HasBMI`
    gives `hasBMI()`; a level feature (X86SSELevel = AVX512) gives
    `hasAVX512()`."""
    getters = {}
    for f in d.of("SubtargetFeature"):
        rec = d.r[f]
        field, value, name = rec.get("FieldName") or "", rec.get("Value") or "", rec["Name"]
        if not field:
            continue
        if value == "true":
            getters.setdefault(field[0].lower() + field[1:], name)
        elif value and value[0].isalpha():
            getters.setdefault("has" + value, name)
    return getters


CALL = re.compile(r"Subtarget(?:->|\.)(\w+)\(\)")


def cond_from_string(s, getters):
    """CondString (C++) -> expression over feature names; calls we cannot map
    stay as `?name()` so the gap is visible."""
    unmapped = []

    def sub(m):
        g = m.group(1)
        if g in getters:
            return getters[g]
        unmapped.append(g)
        return f"?{g}()"

    expr = CALL.sub(sub, s.strip())
    return expr, unmapped


def compact_predicates(d, used):
    feat = feature_names(d)
    getters = subtarget_getters(d)
    out = {}
    unmapped = 0
    for p in sorted(used):
        rec = d.r[p]
        dag = rec.get("AssemblerCondDag")
        raw = rec.get("CondString") or ""
        if dag is not None:
            cond = cond_from_dag(dag, feat)
        else:
            cond, missing = cond_from_string(raw, getters)
            unmapped += bool(missing)
        out[p] = {"cond": cond, "raw": raw}
    return out, unmapped


def compact_features(d):
    out = {}
    for f in d.of("SubtargetFeature"):
        rec = d.r[f]
        name = rec["Name"]
        if not name or name in out:
            continue
        out[name] = {
            "record": f,
            "desc": rec.get("Desc") or "",
            "implies": sorted(d.r[def_name(i)]["Name"] for i in rec.get("Implies") or []),
        }
    return out


# --------------------------------------------------------------------------
# Operand types

IMM_CODE = [
    (re.compile(r"isInt<(\d+)>\(Imm\)"), lambda m: (int(m[1]), True)),
    (re.compile(r"isUInt<(\d+)>\(Imm\)"), lambda m: (int(m[1]), False)),
]
RANGE_CODE = [
    re.compile(r"\(\(uint64_t\)Imm\)\s*<\s*(\d+)\s*;"),
    re.compile(r"\(uint32_t\)Imm\)\s*<\s*(\d+)\s*;"),
]
RV_OPTYPE = re.compile(r"OPERAND_(S|U)IMM(\d+)(?:_LSB(0+))?$")
RANGE_PRED = re.compile(r"isImmInRange<\s*(-?\d+)\s*,\s*(-?\d+)\s*>")
RANGE_NAME = re.compile(r"^[A-Za-z]*?(\d+)_(\d+)(?:Operand)?$")
X86_IMM_CLASS = re.compile(r"^Imm(SExt|Unsigned|ZExt)?i?(\d+)?i?(\d+)?")


def imm_info(d, rec, parser):
    """Width/signedness/range of an immediate where LLVM states it."""
    info = {}
    vt = def_name(rec.get("Type"))
    code = rec.get("ImmediateCode") or ""
    optype = rec.get("OperandType") or ""
    pred = parser.get("PredicateMethod", "") if parser else ""
    pname = parser.get("Name", "") if parser else ""
    m = RV_OPTYPE.match(optype)
    if m:
        bits, signed = int(m[2]), m[1] == "S"
        lsb = len(m[3] or "")
        info.update(bits=bits, signed=signed, align=1 << lsb)
    for rx, conv in IMM_CODE:
        mm = rx.search(code)
        if mm and "bits" not in info:
            bits, signed = conv(mm)
            info.update(bits=bits, signed=signed)
    if "bits" in info:
        b = info["bits"]
        if info["signed"]:
            info.update(min=-(1 << (b - 1)), max=(1 << (b - 1)) - 1)
        else:
            info.update(min=0, max=(1 << b) - 1)
    for rx in RANGE_CODE:
        mm = rx.search(code)
        if mm:
            info.update(min=0, max=int(mm[1]) - 1, signed=False)
    mm = RANGE_PRED.search(pred)
    if mm:
        info.update(min=int(mm[1]), max=int(mm[2]))
    # x86: ImmSExti64i32 -> 32-bit signed, sign-extended to 64; ImmUnsignedi8.
    if pname.startswith("ImmSExt"):
        mm = re.match(r"ImmSExti(\d+)i(\d+)", pname)
        if mm:
            b = int(mm[2])
            info.update(bits=b, signed=True, min=-(1 << (b - 1)), max=(1 << (b - 1)) - 1)
    elif pname.startswith("ImmUnsignedi"):
        b = int(pname[len("ImmUnsignedi"):])
        info.update(bits=b, signed=False, min=0, max=(1 << b) - 1)
    if "bits" not in info and vt and vt_bits(d, vt) and optype == "OPERAND_IMMEDIATE":
        info["vt_bits"] = vt_bits(d, vt)
    return info


def parser_class(d, rec):
    name = def_name(rec.get("ParserMatchClass"))
    if not name or name not in d.r:
        return None
    p = d.r[name]
    return {"Name": p.get("Name") or "", "PredicateMethod": p.get("PredicateMethod") or ""}


def compact_operand_type(d, name):
    rec = d.r[name]
    sc = rec["!superclasses"]
    if "RegisterClass" in sc:
        return {"kind": "reg", "class": name}
    if "RegisterOperand" in sc:
        out = {"kind": "reg", "class": def_name(rec["RegClass"])}
        for k, short in (("PrintMethod", "print"), ("EncoderMethod", "encode"), ("DecoderMethod", "decode")):
            if rec.get(k):
                out[short] = rec[k]
        p = parser_class(d, rec)
        if p and p["Name"]:
            out["parser"] = p["Name"]
        return out
    if "PointerLikeRegClass" in sc:
        return {"kind": "ptr"}
    if "Operand" not in sc:
        return {"kind": "other"}
    optype = rec.get("OperandType") or ""
    sub = [[def_name(a) or "?", n] for a, n in (rec.get("MIOperandInfo") or {}).get("args", [])]
    if optype == "OPERAND_MEMORY":
        kind = "mem"
    elif optype == "OPERAND_PCREL":
        kind = "pcrel"
    elif sub:
        kind = "complex"
    elif optype == "OPERAND_REGISTER":
        kind = "reg"
    else:
        kind = "imm"
    out = {"kind": kind, "optype": optype}
    vt = def_name(rec.get("Type"))
    if vt:
        out["vt"] = vt
    for k, short in (("PrintMethod", "print"), ("EncoderMethod", "encode"), ("DecoderMethod", "decode")):
        if rec.get(k):
            out[short] = rec[k]
    p = parser_class(d, rec)
    if p and p["Name"]:
        out["parser"] = p["Name"]
    if sub:
        out["sub"] = sub
    if kind == "imm":
        imm = imm_info(d, rec, p)
        if imm:
            out["imm"] = imm
    return out


# --------------------------------------------------------------------------
# Instructions

CONSTRAINT_TIE = re.compile(r"^\$(\w+)\s*=\s*\$(\w+)$")
CONSTRAINT_EC = re.compile(r"^@earlyclobber\s+\$(\w+)$")


def parse_constraints(name, s):
    ties, early = [], []
    for part in (p.strip() for p in s.split(",")):
        if not part:
            continue
        m = CONSTRAINT_TIE.match(part)
        if m:
            ties.append((m[1], m[2]))
            continue
        m = CONSTRAINT_EC.match(part)
        if m:
            early.append(m[1])
            continue
        raise CompactError(f"{name}: unknown constraint {part!r}")
    return ties, early


def operand_list(dag, io, types):
    ops = []
    for a, n in dag["args"]:
        if isinstance(a, dict) and a.get("kind") == "def":
            t = a["def"]
            types.add(t)
            op = {"name": n or "", "type": t, "io": io}
        elif isinstance(a, dict) and a.get("kind") == "dag":
            t = a["operator"]["def"]
            types.add(t)
            op = {"name": n or "", "type": t, "io": io,
                  "sub_names": [sn or "" for _, sn in a["args"]]}
        else:
            raise CompactError(f"unexpected operand {a!r}")
        ops.append(op)
    return ops


def inst_layout(inst_bits):
    """LLVM `Inst` bits -> (pattern, fields).

    pattern: one char per bit, MSB first: '0'/'1' constant, '-' unset,
    'v' from an operand field. fields: [var, var_lo, inst_lo, width] runs,
    meaning Inst[inst_lo +: width] = var[var_lo +: width]."""
    pattern = []
    fields = []
    for pos, b in enumerate(inst_bits):
        if b is None:
            pattern.append("-")
            continue
        if isinstance(b, int):
            pattern.append(str(b))
            continue
        if b["kind"] == "varbit":
            var, idx = b["var"], b["index"]
        elif b["kind"] == "var":
            var, idx = b["var"], 0
        else:
            raise CompactError(f"unexpected Inst bit {b!r}")
        pattern.append("v")
        last = fields[-1] if fields else None
        if last and last[0] == var and last[1] + last[3] == idx and last[2] + last[3] == pos:
            last[3] += 1
        else:
            fields.append([var, idx, pos, 1])
    return "".join(reversed(pattern)), fields


def target_opcodes(path):
    names = []
    rx = re.compile(r"^HANDLE_TARGET_OPCODE\((\w+)\)")
    with open(path) as f:
        for line in f:
            m = rx.match(line.strip())
            if m:
                names.append(m[1])
    if not names:
        raise CompactError(f"{path}: no HANDLE_TARGET_OPCODE lines")
    return names


def opcode_order(d, fixed):
    all_insts = d.of("Instruction")
    target = [n for n in all_insts if d.r[n].get("Namespace") != "TargetOpcode"]
    present = set(all_insts)
    missing = [n for n in fixed if n not in present]
    if missing:
        raise CompactError(f"target-independent opcodes missing from dump: {missing[:5]}")
    target.sort(key=lambda n: (not d.r[n].get("isPseudo"), n.encode()))
    order = fixed + target
    if len(order) != len(all_insts):
        raise CompactError(f"opcode count mismatch: {len(order)} vs {len(all_insts)}")
    return order


def compact_instruction(d, arch, name, opcode, types, preds_used):
    rec = d.r[name]
    ops = operand_list(rec["OutOperandList"], "out", types) + \
        operand_list(rec["InOperandList"], "in", types)
    ties, early = parse_constraints(name, rec.get("Constraints") or "")
    by_name = {o["name"]: o for o in ops}
    for a, b in ties:
        for x, y in ((a, b), (b, a)):
            if x in by_name:
                by_name[x]["tied"] = y
    out = {
        "name": name,
        "opcode": opcode,
        "ns": rec.get("Namespace") or "",
        "asm": rec.get("AsmString") or "",
        "size": rec.get("Size") or 0,
        "ops": ops,
        "defs": [def_name(r) for r in rec.get("Defs") or []],
        "uses": [def_name(r) for r in rec.get("Uses") or []],
        "flags": [f for f in FLAGS if rec.get(f) == 1],
        "unknown": [f for f in FLAGS if f in TRISTATE and rec.get(f) is None],
        "preds": [def_name(p) for p in rec.get("Predicates") or []],
    }
    if early:
        out["earlyclobber"] = early
    if rec.get("AsmVariantName"):
        out["asm_variant"] = rec["AsmVariantName"]
    if rec.get("DecoderNamespace"):
        out["decoder_ns"] = rec["DecoderNamespace"]
    preds_used.update(out["preds"])
    if arch == "x86_64":
        enc = {}
        for k, short in X86_DEF_FIELDS.items():
            v = def_name(rec.get(k))
            if v:
                enc[short] = v
        if isinstance(rec.get("Opcode"), list):
            enc["opcode"] = bits_value(rec["Opcode"])
        if isinstance(rec.get("FormBits"), list):
            enc["form_value"] = bits_value(rec["FormBits"])
        for k, short in X86_BIT_FIELDS.items():
            if rec.get(k) == 1:
                enc[short] = 1
        for k, short in (("CD8_Scale", "cd8_scale"), ("CD8_Form", "cd8_form"), ("VectSize", "vect_size")):
            if isinstance(rec.get(k), list):
                v = bits_value(rec[k])
                if v:
                    enc[short] = v
        if rec.get("CD8_EltSize"):
            enc["cd8_elt_size"] = rec["CD8_EltSize"]
        out["x86"] = enc
    else:
        inst = rec.get("Inst")
        if isinstance(inst, list):
            pattern, fields = inst_layout(inst)
            out["inst"] = pattern
            out["fields"] = fields
        if rec.get("PostEncoderMethod"):
            out["post_encoder"] = rec["PostEncoderMethod"]
        # RISC-V vector forms whose result must not overlap a source:
        # RVVConstraint (VS2Constraint 1, VS1Constraint 2, VMConstraint 4,
        # or'ed: widening, vrgather, vcompress, vsext, vector crypto's
        # vsha2c*/vsm3me/.vs forms), which LLVM checks outside `Constraints`.
        c = def_name(rec.get("RVVConstraint"))
        if c and isinstance(d.r.get(c, {}).get("Value"), list):
            v = bits_value(d.r[c]["Value"])
            if v:
                out["rvv_constraint"] = v
    return out


def mi_count(d, t):
    """How many machine operands an operand of type `t` has."""
    return len((d.r.get(t, {}).get("MIOperandInfo") or {}).get("args") or []) or 1


def compact_alias(d, name, insts_by_name, types, preds_used):
    """An `InstAlias` as the spelling of one instruction form: its
    `AsmString` and, per machine operand of the form, what the alias puts
    there: `{"name": n, "type": t, "sub": i}` (sub-operand i of the alias
    operand `$n` of type t), `{"reg": R}` or `{"imm": v}` (fixed), or
    `{"tied": 1}` (an operand the result dag leaves out because it is tied
    to an earlier one). `None` when the alias is not one the tables can
    state (a result that is no instruction, a dag this reading does not
    know)."""
    rec = d.r[name]
    res = rec.get("ResultInst") or {}
    inst = def_name(res.get("operator"))
    if inst not in insts_by_name or not rec.get("AsmString"):
        return None
    form = insts_by_name[inst]
    args = list(res.get("args") or [])
    mc = []
    prev_types = {}
    for op in form["ops"]:
        t = op["type"]
        n_sub = mi_count(d, t)
        # Tied registers are left out of the result dag (LLVM's
        # CodeGenInstAlias) when they have the type of the operand they are
        # tied to.
        if op.get("tied") and n_sub == 1 and prev_types.get(op["tied"]) == t:
            mc.append({"tied": 1})
            prev_types[op["name"]] = t
            continue
        prev_types[op["name"]] = t
        if not args:
            return None
        a, n = args[0]
        # One argument for the whole operand, or (`mvn $Xd, $Xm` for
        # ORN's shifted register) one per machine operand.
        if isinstance(a, dict) and a.get("kind") == "def" and n and mi_count(d, a["def"]) == n_sub:
            at = a["def"]
            types.add(at)
            args.pop(0)
            mc.extend({"name": n, "type": at, "sub": i} for i in range(n_sub))
            continue
        for _ in range(n_sub):
            if not args:
                return None
            a, n = args.pop(0)
            if isinstance(a, dict) and a.get("kind") == "def" and n and mi_count(d, a["def"]) == 1:
                types.add(a["def"])
                mc.append({"name": n, "type": a["def"], "sub": 0})
            elif isinstance(a, int):
                mc.append({"imm": a})
            elif isinstance(a, dict) and a.get("kind") == "def" and "Register" in d.r.get(a["def"], {}).get("!superclasses", []):
                mc.append({"reg": a["def"]})
            else:
                return None
    if args:
        return None
    preds = [def_name(p) for p in rec.get("Predicates") or []]
    preds_used.update(preds)
    out = {"asm": rec["AsmString"], "inst": inst, "ops": mc,
           "priority": rec.get("EmitPriority") or 0}
    if preds:
        out["preds"] = preds
    return out


# --------------------------------------------------------------------------


def compact(records, arch, fixed_opcodes):
    d = Dump(records)
    bank = RegisterBank(d)
    classes = {}
    for c in d.of("RegisterClass"):
        classes[c] = {"bits": regclass_bits(d, d.r[c]), "members": bank.expand(c)}
    types = set()
    preds_used = set()
    order = opcode_order(d, fixed_opcodes)
    insts = [compact_instruction(d, arch, n, i, types, preds_used) for i, n in enumerate(order)]
    # InstAlias records: the spellings assemblers accept beside the
    # instructions' own (AArch64 `cmp`, `mov`, `lsr`, `ldr` of an
    # unscaled offset), in record order.
    inst_aliases = []
    if arch in ALIAS_ARCHS:
        by_name = {i["name"]: i for i in insts}
        for n in d.of("InstAlias"):
            a = compact_alias(d, n, by_name, types, preds_used)
            if a:
                inst_aliases.append(a)
    # operand types, including the sub-operand types of complex operands
    optypes = {}
    pending = sorted(types)
    while pending:
        t = pending.pop()
        if t in optypes or t not in d.r:
            continue
        optypes[t] = compact_operand_type(d, t)
        for st, _ in optypes[t].get("sub", []):
            if st not in optypes:
                pending.append(st)
    for ot in optypes.values():
        if ot.get("class") and ot["class"] not in classes:
            raise CompactError(f"operand class {ot['class']} is not a register class")
    preds, unmapped = compact_predicates(d, preds_used)
    aliases = bank.aliases()
    regs = {}
    for name, r in bank.regs.items():
        e = {"asm": r["asm"], "enc": r["enc"]}
        if r["alt"]:
            e["alt"] = r["alt"]
        if r["sub"]:
            e["sub"] = r["sub"]
        if aliases[name] != sorted(r["sub"]):
            e["all_sub"] = aliases[name]
        if r.get("tuple"):
            e["tuple"] = True
        regs[name] = e
    stats = {
        "records": len(records) - 2,
        "instructions": len(insts),
        "aliases": len(inst_aliases),
        "real_instructions": sum(1 for i in insts if not ({"isPseudo", "isCodeGenOnly"} & set(i["flags"]))),
        "registers": len(regs),
        "register_classes": len(classes),
        "operand_types": len(optypes),
        "predicates": len(preds),
        "predicates_with_unmapped_calls": unmapped,
        "features": len(d.of("SubtargetFeature")),
    }
    return {
        "arch": arch,
        "target": TARGETS[arch],
        "features": compact_features(d),
        "predicates": preds,
        "registers": regs,
        "register_classes": classes,
        "operand_types": optypes,
        "instructions": insts,
        "aliases": inst_aliases,
    }, stats


def dumps(obj):
    """Deterministic JSON: one line per entry of each top-level collection,
    so a regeneration is a reviewable line diff."""
    enc = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    lines = ["{"]
    keys = sorted(obj)
    for ki, k in enumerate(keys):
        v = obj[k]
        end = "," if ki + 1 < len(keys) else ""
        if isinstance(v, dict) and v:
            lines.append(f"{enc(k)}:{{")
            items = sorted(v.items())
            for i, (ik, iv) in enumerate(items):
                lines.append(f"{enc(ik)}:{enc(iv)}" + ("," if i + 1 < len(items) else ""))
            lines.append("}" + end)
        elif isinstance(v, list) and v:
            lines.append(f"{enc(k)}:[")
            for i, iv in enumerate(v):
                lines.append(enc(iv) + ("," if i + 1 < len(v) else ""))
            lines.append("]" + end)
        else:
            lines.append(f"{enc(k)}:{enc(v)}{end}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", required=True, choices=sorted(TARGETS))
    ap.add_argument("--dump", required=True, help="llvm-tblgen --dump-json output")
    ap.add_argument("--target-opcodes", required=True,
                    help="llvm/include/llvm/Support/TargetOpcodes.def of the same LLVM")
    ap.add_argument("--out", required=True)
    ap.add_argument("--stats", help="write record counts as JSON here")
    a = ap.parse_args()
    try:
        with open(a.dump) as f:
            records = json.load(f)
        data, stats = compact(records, a.arch, target_opcodes(a.target_opcodes))
    except CompactError as e:
        sys.exit(f"compact_tablegen: {a.arch}: {e}")
    with open(a.out, "w") as f:
        f.write(dumps(data))
    if a.stats:
        with open(a.stats, "w") as f:
            json.dump(stats, f, sort_keys=True, indent=1)
            f.write("\n")
    print(f"{a.arch}: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())))


if __name__ == "__main__":
    main()
