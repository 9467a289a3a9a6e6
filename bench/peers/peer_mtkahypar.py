#!/usr/bin/env python3
"""Mt-KaHyPar's map_onto_graph as a rankmap benchmark peer.

Maps the communication graph onto a target graph (the torus, written by the
driver as a METIS file whose edge weights are the cost of one hop along that
dimension) minimising the Steiner-tree objective, which for a graph is
sum over edges of weight x target distance: the same objective rankmap calls
the (bandwidth-)weighted cost. Block b of the result is target vertex b, i.e.
torus node b. Mt-KaHyPar supports target graphs of at most 64 nodes; larger
targets exit with status 4 (reported as N/A).

Balance: max block weight is (1 + eps) x ceil(ranks / nodes); with eps below
1 / ppn this is exactly ppn ranks per node when the machine is full.
"""
import argparse
import time

import peer_common as pc

MAX_TARGET_NODES = 64


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--graph', required=True, help='METIS graph file (edge weights)')
    ap.add_argument('--target', required=True, help='METIS target graph (torus, edge weight = hop cost)')
    ap.add_argument('--ppn', type=int, required=True, help='ranks per node')
    ap.add_argument('--out', required=True, help='node-index vector to write')
    ap.add_argument('--preset', default='QUALITY', help='Mt-KaHyPar preset (DEFAULT, QUALITY, HIGHEST_QUALITY, ...)')
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()

    try:
        import mtkahypar
        from importlib.metadata import version
        mt_version = version('mtkahypar')
    except ImportError as err:
        pc.die(pc.EXIT_NOT_INSTALLED, f'mtkahypar not installed: {err}')

    target_nodes = int(open(args.target).readline().split()[0])
    if target_nodes > MAX_TARGET_NODES:
        pc.die(pc.EXIT_UNSUPPORTED,
               f'map_onto_graph supports at most {MAX_TARGET_NODES} target nodes, this torus has {target_nodes}')
    g = pc.read_metis(args.graph)
    if g.n > args.ppn * target_nodes:
        pc.die(pc.EXIT_UNSUPPORTED, f'{g.n} ranks do not fit {target_nodes} nodes x {args.ppn}')

    mtkahypar.set_seed(args.seed)
    init = mtkahypar.initialize(args.threads, False)
    context = init.context_from_preset(getattr(mtkahypar.PresetType, args.preset))
    # eps < 1/ppn: the rounded-down capacity is exactly ppn per block.
    eps = min(0.03, 0.5 / args.ppn)
    context.set_mapping_parameters(target_nodes, eps)
    context.logging = False
    edges = list(g.edges())
    graph = init.create_graph(context, g.n, len(edges), [(u, v) for u, v, _ in edges], g.vwgt,
                              [w for _, _, w in edges])
    target = init.target_graph_from_file(args.target, context)
    start = time.perf_counter()
    mapped = graph.map_onto_graph(target, context)
    seconds = time.perf_counter() - start
    nodes = [mapped.block_id(u) for u in range(g.n)]
    pc.write_vector(args.out, nodes, f'mtkahypar {mt_version}', seconds,
                    [f'map_onto_graph preset {args.preset} eps {eps:g} threads {args.threads} '
                     f'steiner_tree {mapped.steiner_tree(target)}'])


if __name__ == '__main__':
    main()
