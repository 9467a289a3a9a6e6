#!/usr/bin/env python3
"""Link loads of the CG mini-app's exchanges, stage by stage.

    cg_stages.py PROFILE TORUS_SIZES MAPPING.map [MAPPING.map ...]

examples/cg.c sums its mat-vec across the process row in stages, one
partner at a time (column c exchanges with c^1, then c^2, c^4, ...: MPI_Irecv
+ MPI_Send + MPI_Wait), then swaps the transpose piece with one partner. So
only one stage's messages share the links at any time, which a profile (who
sends how much to whom, in no order) cannot say. This script knows the
stages from the program: for each mapping it routes every stage's pairs
under rankmap's routing (direction-ordered, dimension 0 first, a tie half
way round a ring going "+") and prints the busiest link of each stage and
their sum, next to the busiest link of all stages at once (what the
evaluator's max link load, and the bulk model's rounds, see).

Square process grids only (the power-of-four rank counts of the recorded
profiles: 64 = 8x8, 256 = 16x16, 1024 = 32x32); each pair's bytes are the
profile's. Every link is taken as single: busiest bytes, not time.
"""
import math
import sys


def read_profile(path):
    """Ranks, and bytes by (src, dst)."""
    pair_bytes = {}
    ranks = 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "ranks":
                ranks = int(w[1])
            if w and w[0] == "p2p":
                pair_bytes[(int(w[1]), int(w[2]))] = float(w[4])
    return ranks, pair_bytes


def read_mapping(path):
    node = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 4 and w[0].isdigit():
                node[int(w[0])] = int(w[1])
    return node


def route(a, b, sizes):
    """Directed links (node, dimension, +1/-1) from node a to node b."""
    strides, s = [], 1
    for n in sizes:
        strides.append(s)
        s *= n
    ca = [(a // strides[d]) % sizes[d] for d in range(len(sizes))]
    cb = [(b // strides[d]) % sizes[d] for d in range(len(sizes))]
    moves = []
    for d, n in enumerate(sizes):
        forward = (cb[d] - ca[d]) % n
        moves.append(forward if forward <= n // 2 else forward - n)
    links, at = [], list(ca)
    for phase in (1, -1):
        for d in range(len(sizes)):
            if moves[d] * phase <= 0:
                continue
            for _ in range(abs(moves[d])):
                links.append((sum(at[i] * strides[i] for i in range(len(sizes))), d, phase))
                at[d] = (at[d] + phase) % sizes[d]
    return links


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    ranks, pair_bytes = read_profile(sys.argv[1])
    side = math.isqrt(ranks)
    if side * side != ranks:
        sys.exit("cg_stages.py: %d ranks is not a square process grid" % ranks)
    sizes = [int(x) for x in sys.argv[2].split("x")]
    stages = []
    k = 1
    while k < side:
        stages.append([(r, (r // side) * side + ((r % side) ^ k)) for r in range(ranks)])
        k *= 2
    stages.append([(r, (r % side) * side + r // side) for r in range(ranks) if r // side != r % side])
    print("%-28s %s   %12s %12s" % ("mapping", " ".join("%9s" % ("c^%d" % (1 << i)) for i in range(len(stages) - 1)) +
                                  " transpose", "sum of max", "all at once"))
    for path in sys.argv[3:]:
        node = read_mapping(path)
        total, per_stage = {}, []
        for pairs in stages:
            load = {}
            for src, dst in pairs:
                sent = pair_bytes.get((src, dst), 0)
                if node[src] == node[dst] or not sent:
                    continue
                for link in route(node[src], node[dst], sizes):
                    load[link] = load.get(link, 0) + sent
                    total[link] = total.get(link, 0) + sent
            per_stage.append(max(load.values(), default=0))
        print("%-28s %s   %12.4g %12.4g" % (path.split("/")[-1], " ".join("%9.4g" % v for v in per_stage),
                                           sum(per_stage), max(total.values(), default=0)))


if __name__ == "__main__":
    main()
