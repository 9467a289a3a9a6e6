#!/usr/bin/env python3
"""Stock Scotch's placement of a profile, as a rankmap mapping file.

    scotch_mapping.py PROFILE MACHINE_LINE SIZES PPN STRATEGY OUT.map

Writes the bytes-only communication graph of PROFILE's p2p lines (weight of
{u, v} = bytes both ways, as bench/peers gives the peers), maps it with
bench/peers/peer_scotch.sh onto Scotch's torusXD target of SIZES (e.g.
4x2x2x2; terminal numbering = rankmap's node numbering, dimension 0 fastest),
and writes the mapping with cores in rank order on each node. `stock` is plain
scotch_gmap (default strategy, 5% imbalance allowed): a node that receives
more than PPN ranks is repaired by moving its least-attached ranks to the
nearest node with room (hop distance, ties to the lower index), and the number
of moved ranks is printed ("repaired N"). `strict` is -cqb -b0 (exact balance).
"""
import os
import subprocess
import sys
import tempfile


def main():
    profile, machine_line, sizes_text, ppn, strategy, out = sys.argv[1:7]
    ppn = int(ppn)
    sizes = [int(s) for s in sizes_text.split("x")]
    nodes = 1
    for s in sizes:
        nodes *= s
    ranks = 0
    weight = {}
    for line in open(profile):
        w = line.split()
        if w and w[0] == "ranks":
            ranks = int(w[1])
        if w and w[0] == "p2p":
            a, b, nbytes = int(w[1]), int(w[2]), int(w[4])
            if a != b and nbytes > 0:
                key = (min(a, b), max(a, b))
                weight[key] = weight.get(key, 0) + nbytes
    adj = [[] for _ in range(ranks)]
    for (a, b), wt in weight.items():
        adj[a].append((b, wt))
        adj[b].append((a, wt))
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        grf = os.path.join(tmp, "graph.grf")
        with open(grf, "w") as f:
            edges = sum(len(a) for a in adj)
            f.write("0\n%d\t%d\n0\t010\n" % (ranks, edges))
            for u in range(ranks):
                f.write(str(len(adj[u])) + "".join("\t%d %d" % (wt, v) for v, wt in sorted(adj[u])) + "\n")
        vec = os.path.join(tmp, "out.vec")
        target = "torusXD %d " % len(sizes) + " ".join(str(s) for s in sizes)  # count, then sizes
        subprocess.run([os.path.join(here, "..", "peers", "peer_scotch.sh"), "--graph", grf, "--target", target,
                        "--strategy", strategy, "--out", vec], check=True)
        node_of = [int(l) for l in open(vec) if l.strip() and not l.startswith("#")]
    assert len(node_of) == ranks, "scotch_gmap mapped %d of %d ranks" % (len(node_of), ranks)

    def coords(n):
        c = []
        for s in sizes:
            c.append(n % s)
            n //= s
        return c

    def hops(a, b):
        return sum(min(abs(x - y), s - abs(x - y)) for x, y, s in zip(coords(a), coords(b), sizes))

    count = [0] * nodes
    for n in node_of:
        count[n] += 1
    moved = 0
    for n in range(nodes):
        while count[n] > ppn:
            members = [r for r in range(ranks) if node_of[r] == n]
            attached = lambda r: sum(wt for v, wt in adj[r] if node_of[v] == n)
            r = min(members, key=lambda r: (attached(r), r))
            dest = min((m for m in range(nodes) if count[m] < ppn), key=lambda m: (hops(n, m), m))
            node_of[r] = dest
            count[n] -= 1
            count[dest] += 1
            moved += 1
    used = [0] * nodes
    with open(out, "w") as f:
        f.write("rankmap-mapping 1\nmachine %s\nranks %d\n" % (machine_line, ranks))
        for r in range(ranks):
            n = node_of[r]
            f.write("%d %d node-%d %d\n" % (r, n, n, used[n]))
            used[n] += 1
    print("repaired %d" % moved)


if __name__ == "__main__":
    main()
