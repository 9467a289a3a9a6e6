#!/usr/bin/env python3
"""Generate libcommprof's MPI wrappers from wrappers.spec.

The spec names each intercepted function and the kind of event it is; the
prototypes themselves are taken from the MPI implementation's own header, so
every wrapper matches the installed library exactly (const-ness, MPI_Count
variants) and nothing is typed by hand. Usage:
    gen_wrappers.py SPEC MPI_HEADER... -o OUTPUT.cpp
        [--fortran FORTRAN.cpp --nm NM --fortran-lib LIB...] [--weak-header WEAK.h]

--fortran also writes Fortran entry points for MPIs whose Fortran bindings call
PMPI_* directly (Open MPI): for each spec routine whose Fortran symbols the
given libraries define (`mpi_send_` for mpif.h and `use mpi`, `mpi_send_f08_`
for `use mpi_f08`), a wrapper that forwards to the `pmpi_*` Fortran symbol and
runs the same action on handles converted with the *_f2c functions.

--weak-header writes `#pragma weak` for every symbol the header lets the
library take from the MPI library (PMPI_* and helper functions, extern data
such as Open MPI's predefined handles). The profiler is then linked without
the MPI library: in an MPI program the references bind to the program's own
libmpi, and a process that never loads MPI (the launcher, a shell, anything
the preload reaches) never loads it because of the profiler either.
"""
import argparse
import re
import subprocess
import sys

PROTO_RE = re.compile(r"\bint\s+(MPI_\w+)\s*\(")
# SimGrid SMPI declares its API as MPI_CALL(XBT_PUBLIC int, MPI_Send, (...));
SMPI_PROTO_RE = re.compile(r"\bMPI_CALL\(\s*(?:XBT_PUBLIC\s+)?int\s*,\s*(MPI_\w+)\s*,\s*\(")
# SMPI's parameter names where they differ from the MPI standard's, which the
# spec's actions use (renamed in the wrapper's declaration and call alike).
SMPI_PARAM_NAMES = {"dst": "dest", "src": "source", "requests": "array_of_requests",
                    "sendcnts": "sendcounts", "recvcnts": "recvcounts",
                    "senddisps": "sdispls", "recvdisps": "rdispls"}

# MPICH's names that differ from the standard's (MPI_Waitany's `indx`).
PARAM_NAMES = {"indx": "index"}


def read_prototypes(headers):
    """Returns {name: [(type, param_name), ...]} for every `int MPI_*(...)` in the headers."""
    protos = {}
    for path in headers:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        smpi = SMPI_PROTO_RE.search(text) is not None
        for m in (SMPI_PROTO_RE if smpi else PROTO_RE).finditer(text):
            name = m.group(1)
            depth, i = 1, m.end()
            while depth and i < len(text):
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            body = " ".join(text[m.end():i - 1].split())
            if name in protos or "(" in body or "..." in body:  # never wrapped here
                continue
            params = []
            if body not in ("", "void"):
                for p in body.split(","):
                    p = p.strip()
                    pm = re.match(r"^(.*?)(\w+)\s*((?:\[\s*\w*\s*\])*)$", p)
                    if not pm:
                        raise SystemExit(f"gen_wrappers: cannot parse parameter '{p}' of {name}")
                    ptype, pname, arr = pm.group(1).strip(), pm.group(2), pm.group(3)
                    if smpi:
                        pname = SMPI_PARAM_NAMES.get(pname, pname)
                    pname = PARAM_NAMES.get(pname, pname)
                    params.append((ptype, pname, arr.replace(" ", "")))
            protos[name] = params
    return protos


WHENS = ("pre", "post", "always", "none", "trace-pre", "trace-post")


def read_spec(path):
    kinds, functions = {}, []
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            where = f"{path}:{lineno}"
            if line.startswith("@kind"):
                parts = line.split(None, 3)
                if len(parts) < 3:
                    raise SystemExit(f"{where}: expected '@kind NAME WHEN [ACTION]'")
                when = parts[2].split(",")
                bad = [w for w in when if w not in WHENS]
                if bad:
                    raise SystemExit(f"{where}: unknown timing '{bad[0]}' ({', '.join(WHENS)})")
                # A kind may have several lines (a profile action and trace actions).
                kinds.setdefault(parts[1], []).append((when, parts[3] if len(parts) > 3 else ""))
                continue
            parts = line.split()
            if len(parts) < 2:
                raise SystemExit(f"{where}: expected 'KIND MPI_Name...'")
            if parts[0] not in kinds:
                raise SystemExit(f"{where}: unknown kind '{parts[0]}'")
            for name in parts[1:]:
                functions.append((parts[0], name, where))
    return kinds, functions


# --- Fortran entry points ---------------------------------------------------
# Each Fortran argument is passed by reference; its C type follows from the C
# prototype. Handles become MPI_Fint, converted only where an action uses them.
F2C = {"MPI_Comm": "PMPI_Comm_f2c", "MPI_Datatype": "PMPI_Type_f2c", "MPI_Win": "PMPI_Win_f2c",
       "MPI_Op": "PMPI_Op_f2c", "MPI_Request": "PMPI_Request_f2c", "MPI_Info": "PMPI_Info_f2c",
       "MPI_Group": "PMPI_Group_f2c", "MPI_Message": "PMPI_Message_f2c"}
# The Fortran routines whose arguments are not the C ones.
FORTRAN_PARAMS = {"MPI_Init": [], "MPI_Init_thread": [("int", "required", ""), ("int *", "provided", "")]}
IDENT_RE = re.compile(r"\b[A-Za-z_]\w*\b")


def fortran_type(ctype):
    base = ctype.replace("const", "").replace("*", "").strip()
    if base == "void":
        return "void*"
    if base in ("MPI_Aint", "MPI_Count", "MPI_Offset"):
        return base + "*"
    return "MPI_Fint*"


def array_length(name, kind):
    """How many elements of a handle array an action reads."""
    if name == "array_of_requests":
        return "static_cast<std::size_t>(count)"
    if name in ("sendtypes", "recvtypes"):
        fn = "neighbor_blocks" if kind.startswith("neighbor") else "alltoall_blocks"
        return f"commprof::fortran::{fn}(comm)"
    raise SystemExit(f"gen_wrappers: no Fortran length known for handle array '{name}'")


def fortran_conversions(params, used, kind):
    """C locals named as in the C prototype, for the parameters an action uses."""
    lines, arrays = [], []
    for ctype, name, arr in params:
        if name not in used:
            continue
        base = ctype.replace("const", "").replace("*", "").strip()
        pointer = "*" in ctype or arr
        if base == "void":
            lines.append(f"const void* {name} = commprof::fortran::buffer(f_{name});")
        elif base in F2C and arr:
            arrays.append(f"const std::vector<{base}> {name}_v = commprof::fortran::f2c_array<{base}>("
                          f"f_{name}, {array_length(name, kind)}, {F2C[base]});")
            arrays.append(f"const {base}* {name} = {name}_v.data();")
        elif base in F2C and pointer:
            lines.append(f"{base} {name}_c = {F2C[base]}(*f_{name});")
            lines.append(f"{base}* {name} = &{name}_c;")
        elif base in F2C:
            lines.append(f"const {base} {name} = {F2C[base]}(*f_{name});")
        elif arr or (pointer and base == "int"):
            lines.append(f"const {base}* {name} = f_{name};")
        else:
            lines.append(f"const {base} {name} = *f_{name};")
    return lines + arrays


def fortran_symbols(nm, libraries):
    names = set()
    for lib in libraries:
        out = subprocess.run([nm, "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
        names.update(line.split()[-1] for line in out.splitlines() if line.strip())
    return names


def fortran_wrappers(kinds, functions, protos, symbols):
    out = [
        "// Generated by gen_wrappers.py from wrappers.spec: do not edit.",
        "// Fortran entry points (mpif.h / use mpi: mpi_*_, use mpi_f08: mpi_*_f08_).",
        "// The real routines (pmpi_*, found with dlsym) call the C PMPI_* routines,",
        "// never our MPI_* wrappers, so each message is counted once, here.",
        '#include "fortran.hpp"',
        "",
        'extern "C" {',
    ]
    count = 0
    for kind, name, _ in functions:
        if name not in protos or name.endswith("_c"):
            continue
        params = FORTRAN_PARAMS.get(name, protos[name])
        # Trace actions are C-only: a traced Fortran call stops the trace (below).
        profile = [(w, a) for w, a in kinds[kind] if not any(x.startswith("trace-") for x in w)]
        when, action = profile[0] if profile else (["none"], "")
        used = set(IDENT_RE.findall(action)) if action else set()
        for suffix in ("_", "_f08_"):
            sym = name.lower() + suffix
            real = "p" + sym
            if sym not in symbols or real not in symbols:
                continue
            count += 1
            fparams = [f"{fortran_type(t)} f_{n}" for t, n, _ in params] + ["MPI_Fint* ierror"]
            ftypes = [fortran_type(t) for t, _, _ in params] + ["MPI_Fint*"]
            call = ", ".join([f"f_{n}" for _, n, _ in params] + ["&rc"])
            conv = fortran_conversions(params, used, kind)
            out.append(f"COMMPROF_EXPORT void {sym}({', '.join(fparams)})")
            out.append("{")
            out.append(f"  using Real = void (*)({', '.join(ftypes)});")
            out.append(f'  static const Real real = commprof::fortran::next<Real>("{real}");')
            out.append("  commprof::Entry entry;")
            out.append(f'  if (entry.tracing()) commprof::trace::fortran("{sym}");')
            out.append("  MPI_Fint rc = MPI_SUCCESS;")
            if "pre" in when and action:
                out.append("  if (entry.counting()) {")
                out.extend("    " + c for c in conv)
                out.append(f"    {action};")
                out.append("  }")
            out.append(f"  real({call});")
            out.append("  if (ierror) *ierror = rc;  // optional in mpi_f08")
            cond = {"post": "entry.counting() && rc == MPI_SUCCESS", "always": "rc == MPI_SUCCESS"}
            for w in ("post", "always"):
                if w in when and action:
                    out.append(f"  if ({cond[w]}) {{")
                    out.extend("    " + c for c in conv)
                    out.append(f"    {action};")
                    out.append("  }")
            out.append("}")
            if suffix == "_":
                # The other manglings of the same routine (other compilers, -fno-underscoring).
                for alias in (name.lower(), name.lower() + "__", name.upper()):
                    if alias in symbols:
                        out.append(f'COMMPROF_EXPORT void {alias}({", ".join(fparams)}) __attribute__((alias("{sym}")));')
            out.append("")
    out.append('}  // extern "C"')
    if count == 0:
        raise SystemExit("gen_wrappers: no Fortran symbol of the spec found in the given libraries")
    return out


# Declarations of MPI-library objects the profiler may reference; the names it
# defines itself (MPI_*) are never weakened.
WEAK_FUNCTION_RE = re.compile(r"\b((?:PMPI|OMPI_C_MPI)_\w+)\s*\(")
EXTERN_RE = re.compile(r"\bextern\b([^;(){}\"]*);")
NOT_A_NAME = {"extern", "const", "struct", "int", "MPICH_API_PUBLIC", "MPIU_DLL_SPEC", "OMPI_DECLSPEC"}


def weak_symbols(headers):
    names = set()
    for path in headers:
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
        names.update(WEAK_FUNCTION_RE.findall(text))
        for decl in EXTERN_RE.findall(text):
            words = [w for w in re.findall(r"[A-Za-z_]\w*", re.sub(r"\[[^]]*\]", " ", decl))
                     if w not in NOT_A_NAME]
            if words:  # the declared name comes last
                names.add(words[-1])
    return sorted(n for n in names if not n.startswith("MPI_") or n in ("MPI_UNWEIGHTED", "MPI_WEIGHTS_EMPTY",
                  "MPI_F_STATUS_IGNORE", "MPI_F_STATUSES_IGNORE", "MPI_F08_STATUS_IGNORE", "MPI_F08_STATUSES_IGNORE",
                  "MPI_T_PVAR_ALL_HANDLES"))


def own_statuses(actions, names, name):
    """While tracing, a trace action that reads the status needs one even when
    the program passed MPI_STATUS(ES)_IGNORE: the wrapper lends its own (the
    program never sees it)."""
    used = set()
    for when, action in actions:
        if any(w.startswith("trace-") for w in when):
            used.update(IDENT_RE.findall(action))
    out = []
    if "status" in used and "status" in names:
        out.append("  MPI_Status commprof_status;")
        out.append("  if (entry.tracing() && status == MPI_STATUS_IGNORE) status = &commprof_status;")
    if "array_of_statuses" in used and "array_of_statuses" in names:
        count = "count" if "count" in names else "incount"
        if count not in names:
            raise SystemExit(f"gen_wrappers: {name}: no count for array_of_statuses")
        out.append(f"  commprof::StatusArray commprof_statuses(entry.tracing() && array_of_statuses == MPI_STATUSES_IGNORE ? {count} : 0);")
        out.append("  if (commprof_statuses.size() > 0) array_of_statuses = commprof_statuses.data();")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("headers", nargs="+")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--fortran", help="also write Fortran entry points to this file")
    ap.add_argument("--weak-header", help="also write #pragma weak for the MPI library's symbols to this file")
    ap.add_argument("--no-trace", action="store_true",
                    help="leave out the trace actions (SimGrid's own -trace-ti traces SMPI programs)")
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--fortran-lib", action="append", default=[],
                    help="MPI Fortran library whose symbols are wrapped (repeatable)")
    args = ap.parse_args()
    kinds, functions = read_spec(args.spec)
    if args.no_trace:
        kinds = {k: [(w, a) for w, a in v if not any(x.startswith("trace-") for x in w)] for k, v in kinds.items()}
    protos = read_prototypes(args.headers)
    if args.weak_header:
        names = weak_symbols(args.headers)
        with open(args.weak_header, "w", encoding="utf-8") as f:
            f.write("/* Generated by gen_wrappers.py: do not edit. Included before everything else\n"
                    "   (-include) in every libcommprof source: the MPI library's symbols are weak\n"
                    "   references, so the profiler needs no DT_NEEDED on it. */\n")
            f.writelines(f"#pragma weak {n}\n" for n in names)
    if args.fortran:
        lines = fortran_wrappers(kinds, functions, protos, fortran_symbols(args.nm, args.fortran_lib))
        with open(args.fortran, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

    out = [
        "// Generated by gen_wrappers.py from wrappers.spec: do not edit.",
        '#include "hooks.hpp"',
        "",
        'extern "C" {',
    ]
    seen = set()
    for kind, name, where in functions:
        if name in seen:
            raise SystemExit(f"{where}: {name} listed twice")
        seen.add(name)
        if name not in protos:
            # A spec entry the installed MPI does not provide (e.g. an MPI 4.1
            # routine): skip it rather than fail the build.
            print(f"gen_wrappers: note: {name} not in the MPI header, not wrapped", file=sys.stderr)
            continue
        params = protos[name]
        actions = kinds[kind]
        decl = ", ".join(f"{t} {n}{a}" for t, n, a in params) or "void"
        call = ", ".join(n for _, n, _ in params)
        names = {n for _, n, _ in params}
        pname = "P" + name
        out.append(f"COMMPROF_EXPORT int {name}({decl})")
        out.append("{")
        out.append("  commprof::Entry entry;")
        out.extend(own_statuses(actions, names, name))
        guards = {"pre": "entry.counting()", "trace-pre": "entry.tracing()"}
        for when, action in actions:
            for w in when:
                if w in guards and action:
                    out.append(f"  if ({guards[w]}) {{ {action}; }}")
        out.append(f"  const int rc = {pname}({call});")
        guards = {"post": "entry.counting() && rc == MPI_SUCCESS", "trace-post": "entry.tracing() && rc == MPI_SUCCESS",
                  "always": "rc == MPI_SUCCESS"}
        for when, action in actions:
            for w in when:
                if w in guards and action:
                    out.append(f"  if ({guards[w]}) {{ {action}; }}")
        out.append("  return rc;")
        out.append("}")
        out.append("")
    out.append('}  // extern "C"')
    with open(args.output, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
