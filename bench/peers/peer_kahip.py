#!/usr/bin/env python3
"""KaHIP process mapping as a rankmap benchmark peer.

The `kahip` wheel's Python module only wraps kaffpa, but its extension module
exports the C entry point of KaHIP's interface (kaHIP_interface.h):

  void process_mapping(int* n, int* vwgt, int* xadj, int* adjcwgt, int* adjncy,
                       int* hierarchy_parameter, int* distance_parameter,
                       int hierarchy_depth, int mode_partitioning, int mode_mapping,
                       double* imbalance, bool suppress_output, int seed,
                       int* edgecut, int* qap, int* part);

which we call through ctypes. KaHIP models the machine as a hierarchy (a tree
of PEs, innermost level first, e.g. 4:8:8 with distances 1:10:100) and
partitions the graph into one block per PE. Here a PE is a torus node: the
product of --hierarchy must equal the number of allocated nodes, every block
holds at most ppn ranks, and PE p is allocated node p. The driver passes either
  --hierarchy NODES --distances 1
(flat: KaHIP only partitions, blocks land on nodes in node order, as in the
published method), or the torus sizes, dimension 0 innermost, with tree
distances that approximate the torus distances (see docs/benchmarks.md); PE
numbering (innermost level varying fastest) then equals rankmap's node
numbering (dimension 0 varying fastest).

Not used: the rank level (hierarchy ppn:nodes, one rank per PE). With as many
PEs as vertices KaHIP 3.25 left half of the PEs empty and others with two
ranks (up to 12 ranks on a 6-core node) and took 10-17 s for 192 ranks.
"""
import argparse
import ctypes
import glob
import os
import time

import peer_common as pc

# kaHIP_interface.h
MODES = {'fast': 0, 'eco': 1, 'strong': 2}
MAPMODES = {'multisection': 0, 'bisection': 1}


def load_library():
    try:
        import kahip  # noqa: F401  (only to locate the extension module)
        from importlib.metadata import version
        kahip_version = version('kahip')
    except ImportError as err:
        pc.die(pc.EXIT_NOT_INSTALLED, f'kahip not installed: {err}')
    candidates = glob.glob(os.path.join(os.path.dirname(kahip.__file__), 'kahip*.so'))
    if not candidates:
        pc.die(pc.EXIT_NOT_INSTALLED, 'kahip installed but its extension module was not found')
    lib = ctypes.CDLL(candidates[0])
    try:
        fn = lib.process_mapping
        sizeof_idx = lib.kahip_sizeof_idx
    except AttributeError:
        pc.die(pc.EXIT_NOT_INSTALLED, f'{candidates[0]} does not export process_mapping')
    if sizeof_idx() != ctypes.sizeof(ctypes.c_int):
        pc.die(pc.EXIT_NOT_INSTALLED, f'kahip index width {sizeof_idx()} bytes, this adapter needs 4')
    ip = ctypes.POINTER(ctypes.c_int)
    fn.argtypes = [ip, ip, ip, ip, ip, ip, ip, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                   ctypes.POINTER(ctypes.c_double), ctypes.c_bool, ctypes.c_int, ip, ip, ip]
    fn.restype = None
    return fn, kahip_version


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--graph', required=True, help='METIS graph file (edge weights)')
    ap.add_argument('--ppn', type=int, required=True, help='ranks per node')
    ap.add_argument('--hierarchy', required=True, help='PE hierarchy, innermost level first (e.g. 4:2:2:2)')
    ap.add_argument('--distances', required=True, help='distance between PEs per level (e.g. 13:23:33:43)')
    ap.add_argument('--out', required=True, help='node-index vector to write')
    ap.add_argument('--mode', choices=sorted(MODES), default='strong')
    ap.add_argument('--mapmode', choices=sorted(MAPMODES), default='multisection')
    ap.add_argument('--imbalance', type=float, default=None,
                    help='allowed imbalance (default: min(0.03, 0.5/ppn), i.e. exactly ppn per full node)')
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()

    hierarchy_levels = [int(w) for w in args.hierarchy.split(':')]
    distance_levels = [int(w) for w in args.distances.split(':')]
    if len(hierarchy_levels) != len(distance_levels):
        pc.die(pc.EXIT_FAILED, '--hierarchy and --distances need the same number of levels')
    pes = 1
    for h in hierarchy_levels:
        pes *= h
    fn, kahip_version = load_library()
    g = pc.read_metis(args.graph)
    if g.n > args.ppn * pes:
        pc.die(pc.EXIT_UNSUPPORTED, f'{g.n} ranks do not fit {pes} nodes x {args.ppn}')
    imbalance_value = args.imbalance if args.imbalance is not None else min(0.03, 0.5 / args.ppn)

    def arr(values):
        return (ctypes.c_int * len(values))(*values)

    n = ctypes.c_int(g.n)
    hierarchy = arr(hierarchy_levels)
    distance = arr(distance_levels)
    imbalance = ctypes.c_double(imbalance_value)
    edgecut, qap = ctypes.c_int(0), ctypes.c_int(0)
    part = (ctypes.c_int * g.n)()
    vwgt, xadj, adjwgt, adjncy = arr(g.vwgt), arr(g.xadj), arr(g.adjwgt), arr(g.adjncy)
    start = time.perf_counter()
    fn(ctypes.byref(n), vwgt, xadj, adjwgt, adjncy, hierarchy, distance, len(hierarchy_levels),
       MODES[args.mode], MAPMODES[args.mapmode], ctypes.byref(imbalance), True, args.seed,
       ctypes.byref(edgecut), ctypes.byref(qap), part)
    seconds = time.perf_counter() - start
    bad = [p for p in part if p < 0 or p >= pes]
    if bad:
        pc.die(pc.EXIT_FAILED, f'process_mapping returned PE {bad[0]} outside 0..{pes - 1}')
    pc.write_vector(args.out, list(part), f'kahip {kahip_version}', seconds,
                    [f'process_mapping {args.mode} {args.mapmode} hierarchy {args.hierarchy} '
                     f'distances {args.distances} imbalance {imbalance_value:g} '
                     f'edgecut {edgecut.value} qap {qap.value}'])


if __name__ == '__main__':
    main()
