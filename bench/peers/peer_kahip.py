#!/usr/bin/env python3
"""KaHIP process mapping as a rankmap benchmark peer.

The `kahip` wheel's Python module only wraps kaffpa, but its extension module
exports the C entry point of KaHIP's interface (kaHIP_interface.h):

  void process_mapping(int* n, int* vwgt, int* xadj, int* adjcwgt, int* adjncy,
                       int* hierarchy_parameter, int* distance_parameter,
                       int hierarchy_depth, int mode_partitioning, int mode_mapping,
                       double* imbalance, bool suppress_output, int seed,
                       int* edgecut, int* qap, int* part);

which we call through ctypes. KaHIP models the machine as a hierarchy (a tree),
not a torus, so the node hierarchy is flattened to two levels:
hierarchy = [ppn, nodes] with distances [1, D]. When every PE holds one rank
(ranks == ppn x nodes, as in every benchmark instance) the QAP objective is
W + (D - 1) x (weight cut between nodes), so any D > 1 gives the same optimum;
D defaults to 10. PE p belongs to node group p // ppn, and group g is placed on
the g-th allocated torus node (node order, like the published method): KaHIP
never sees the torus distances.
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
    ap.add_argument('--nodes', type=int, required=True, help='allocated torus nodes, used in index order')
    ap.add_argument('--out', required=True, help='node-index vector to write')
    ap.add_argument('--distance', type=int, default=10, help='distance between nodes (within a node: 1)')
    ap.add_argument('--mode', choices=sorted(MODES), default='strong')
    ap.add_argument('--mapmode', choices=sorted(MAPMODES), default='multisection')
    ap.add_argument('--imbalance', type=float, default=0.03)
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()

    fn, kahip_version = load_library()
    g = pc.read_metis(args.graph)
    if g.n > args.ppn * args.nodes:
        pc.die(pc.EXIT_UNSUPPORTED, f'{g.n} ranks do not fit {args.nodes} nodes x {args.ppn}')

    def arr(values):
        return (ctypes.c_int * len(values))(*values)

    n = ctypes.c_int(g.n)
    hierarchy = arr([args.ppn, args.nodes])
    distance = arr([1, args.distance])
    imbalance = ctypes.c_double(args.imbalance)
    edgecut, qap = ctypes.c_int(0), ctypes.c_int(0)
    part = (ctypes.c_int * g.n)()
    vwgt, xadj, adjwgt, adjncy = arr(g.vwgt), arr(g.xadj), arr(g.adjwgt), arr(g.adjncy)
    start = time.perf_counter()
    fn(ctypes.byref(n), vwgt, xadj, adjwgt, adjncy, hierarchy, distance, 2,
       MODES[args.mode], MAPMODES[args.mapmode], ctypes.byref(imbalance), True, args.seed,
       ctypes.byref(edgecut), ctypes.byref(qap), part)
    seconds = time.perf_counter() - start
    pes = args.ppn * args.nodes
    bad = [p for p in part if p < 0 or p >= pes]
    if bad:
        pc.die(pc.EXIT_FAILED, f'process_mapping returned PE {bad[0]} outside 0..{pes - 1}')
    nodes = [p // args.ppn for p in part]
    pc.write_vector(args.out, nodes, f'kahip {kahip_version}', seconds,
                    [f'process_mapping {args.mode} {args.mapmode} hierarchy {args.ppn}:{args.nodes} '
                     f'distance 1:{args.distance} edgecut {edgecut.value} qap {qap.value}'])


if __name__ == '__main__':
    main()
