"""Shared plumbing of the Python peer adapters.

The adapters read a METIS graph file written by the driver (rankmap_bench_peers),
run one peer mapper and write a node-index vector: one line per rank, holding the
torus node index the peer chose. Lines starting with '#' carry metadata
("# tool NAME VERSION", "# seconds T": the peer's own mapping time, without the
Python start-up and the file reading).

Exit status (read by the driver, which puts it in the table):
  0  success
  3  the peer is not installed (import or symbol lookup failed)
  4  the peer cannot handle this instance (e.g. target too large)
  1  the peer failed (message on stderr)
"""
import os
import sys

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_NOT_INSTALLED = 3
EXIT_UNSUPPORTED = 4


def die(status, message):
    print(message, file=sys.stderr)
    sys.exit(status)


class MetisGraph:
    """Undirected graph in CSR form, 0-based, as in a METIS file."""

    def __init__(self, n, xadj, adjncy, vwgt, adjwgt):
        self.n = n
        self.xadj = xadj
        self.adjncy = adjncy
        self.vwgt = vwgt
        self.adjwgt = adjwgt

    def edges(self):
        """Each undirected edge once, as (u, v, weight) with u < v."""
        for u in range(self.n):
            for e in range(self.xadj[u], self.xadj[u + 1]):
                v = self.adjncy[e]
                if u < v:
                    yield u, v, self.adjwgt[e]


def read_metis(path):
    """Reads a METIS graph (fmt 0, 1, 10 or 11; 1-based neighbours)."""
    with open(path) as f:
        lines = [ln for ln in (raw.strip() for raw in f) if not ln.startswith('%')]
    header = lines[0].split()
    n, m = int(header[0]), int(header[1])
    fmt = header[2] if len(header) > 2 else '0'
    fmt = fmt.rjust(3, '0')
    has_vwgt, has_ewgt = fmt[1] == '1', fmt[2] == '1'
    ncon = int(header[3]) if len(header) > 3 else 1
    if len(lines) - 1 < n:
        raise ValueError(f'{path}: {n} vertices announced, {len(lines) - 1} lines found')
    xadj, adjncy, vwgt, adjwgt = [0], [], [], []
    for u in range(n):
        words = [int(w) for w in lines[1 + u].split()]
        pos = 0
        if has_vwgt:
            vwgt.append(words[0])
            pos = ncon
        else:
            vwgt.append(1)
        step = 2 if has_ewgt else 1
        for i in range(pos, len(words), step):
            adjncy.append(words[i] - 1)
            adjwgt.append(words[i + 1] if has_ewgt else 1)
        xadj.append(len(adjncy))
    if len(adjncy) != 2 * m:
        raise ValueError(f'{path}: {m} edges announced, {len(adjncy) // 2} found')
    return MetisGraph(n, xadj, adjncy, vwgt, adjwgt)


def write_vector(path, nodes, tool, seconds, notes=()):
    """Writes the node-index vector atomically (temporary file + rename)."""
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(f'# tool {tool}\n')
        f.write(f'# seconds {seconds:.6f}\n')
        for note in notes:
            f.write(f'# note {note}\n')
        for node in nodes:
            f.write(f'{node}\n')
    os.replace(tmp, path)
