#!/usr/bin/env python3
"""A mapping whose node groups tile the process grid in one block shape.

    block_mapping.py PROFILE MACHINE_LINE TORUS_SIZES GRID BLOCK OUT.map

GRID is the program's process grid, first dimension fastest (rank = x + X*y
+ X*Y*z, as the mini-apps number it), BLOCK the shape of one node's group
(its product = ranks per node), e.g. GRID 8x4x4 and BLOCK 4x1x1 puts four
consecutive x-neighbours on every node (a 1D run), 2x1x2 a 2D block. The
groups are placed on the torus TORUS_SIZES (node numbering = rankmap's,
dimension 0 fastest) by an iterated swap search on the groups' bytes x hops
(every link single, as on desmos), so every shape gets a good placement of
its own; cores in rank order. Deterministic. For bench/timemodel/shapes.sh:
which group shape SimGrid runs fastest, and which the time model predicts.
"""
import random
import sys


def coords(r, dims):
    c = []
    for d in dims:
        c.append(r % d)
        r //= d
    return c


def main():
    profile, machine_line, torus_text, grid_text, block_text, out = sys.argv[1:7]
    torus = [int(s) for s in torus_text.split("x")]
    grid = [int(s) for s in grid_text.split("x")]
    block = [int(s) for s in block_text.split("x")]
    if len(grid) != len(block) or any(g % b for g, b in zip(grid, block)):
        sys.exit(f"block_mapping.py: block {block_text} does not tile grid {grid_text}")
    ranks = 1
    for g in grid:
        ranks *= g
    per_dim = [g // b for g, b in zip(grid, block)]

    def group(r):
        index, scale = 0, 1
        for c, b, n in zip(coords(r, grid), block, per_dim):
            index += (c // b) * scale
            scale *= n
        return index

    nodes = 1
    for t in torus:
        nodes *= t
    groups = 1
    for n in per_dim:
        groups *= n
    if groups != nodes:
        sys.exit(f"block_mapping.py: {groups} groups for {nodes} nodes")

    weight = [[0.0] * nodes for _ in range(nodes)]
    for line in open(profile):
        f = line.split()
        if len(f) >= 5 and f[0] == "p2p":
            a, b = group(int(f[1])), group(int(f[2]))
            if a != b:
                weight[a][b] += float(f[4])
                weight[b][a] += float(f[4])
    hops = [[sum(min(abs(x - y), t - abs(x - y)) for x, y, t in zip(coords(a, torus), coords(b, torus), torus))
             for b in range(nodes)] for a in range(nodes)]

    def cost(pos):
        return sum(weight[i][j] * hops[pos[i]][pos[j]] for i in range(nodes) for j in range(i + 1, nodes))

    partners = [[(k, w) for k, w in enumerate(row) if w > 0] for row in weight]

    def swap_delta(pos, i, j):
        # Only the groups i and j exchange places: their partners' terms change.
        pi, pj = pos[i], pos[j]
        d = 0.0
        for k, w in partners[i]:
            if k != j:
                d += w * (hops[pj][pos[k]] - hops[pi][pos[k]])
        for k, w in partners[j]:
            if k != i:
                d += w * (hops[pi][pos[k]] - hops[pj][pos[k]])
        return d

    def descend(pos):
        better = True
        while better:
            better = False
            for i in range(nodes):
                for j in range(i + 1, nodes):
                    if swap_delta(pos, i, j) < -1e-6:
                        pos[i], pos[j] = pos[j], pos[i]
                        better = True

    rng = random.Random(1)
    best = None
    for _ in range(max(4, 640 // nodes)):
        pos = list(range(nodes))
        rng.shuffle(pos)
        descend(pos)
        c = cost(pos)
        for _ in range(max(40, 3200 // nodes)):
            kicked = pos[:]
            for _ in range(2):
                i, j = rng.randrange(nodes), rng.randrange(nodes)
                kicked[i], kicked[j] = kicked[j], kicked[i]
            descend(kicked)
            kc = cost(kicked)
            if kc <= c:
                pos, c = kicked, kc
        if best is None or c < best[0]:
            best = (c, pos)
    pos = best[1]
    core = {}
    with open(out, "w") as f:
        f.write(f"rankmap-mapping 1\nmachine {machine_line}\nranks {ranks}\n")
        for r in range(ranks):
            g = group(r)
            core[g] = core.get(g, -1) + 1
            f.write(f"{r} {pos[g]} node-{pos[g]} {core[g]}\n")


if __name__ == "__main__":
    main()
