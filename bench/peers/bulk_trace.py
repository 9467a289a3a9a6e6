#!/usr/bin/env python3
"""A bulk-synchronous SimGrid trace of a profile, for profiles without a program.

    bench/peers/bulk_trace.py PROFILE OUTDIR        (OUTDIR must not exist yet)
    rankmap-sim replay --trace OUTDIR/index.txt -m MACHINE a.map b.map

Synthetic profiles (rankmap synth) and the benchmark's random patterns have no
program to run in SimGrid. This writes one that sends exactly the profile's
point-to-point traffic (collectives are left out) in rounds: in round k every
ordered pair with more than k messages posts one receive and one send of its
bytes / messages (MPI_BYTE), then every rank waits for all of its round's
requests. That is the simplest program with the profile's traffic, a halo
exchange's timing, not necessarily the real application's (docs/simulation.md,
"What the trace must contain", for the format).
"""
import collections
import os
import shutil
import sys
import tempfile


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    profile, out = sys.argv[1], sys.argv[2]
    if os.path.exists(out):
        print(f"{out}: exists; give a new directory", file=sys.stderr)
        return 2
    sends = collections.defaultdict(list)
    receives = collections.defaultdict(list)
    ranks = 0
    try:
        lines = open(profile).read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        print(f"{profile}: cannot read: {e}", file=sys.stderr)
        return 2
    for number, line in enumerate(lines, 1):
        words = line.split()
        try:
            if words and words[0] == "ranks":
                ranks = int(words[1])
            elif words and words[0] == "p2p":
                src, dst, messages, size = (int(w) for w in words[1:5])
                if not (0 <= src < ranks and 0 <= dst < ranks) or messages < 0 or size < 0:
                    raise ValueError
                if messages > 0:
                    sends[src].append((dst, messages, size // messages))
                    receives[dst].append((src, messages, size // messages))
        except (ValueError, IndexError):
            print(f"{profile}:{number}: not a profile line: {line.strip()}", file=sys.stderr)
            return 2
    rounds = max((m for flows in sends.values() for _, m, _ in flows), default=0)
    # Written next to OUTDIR and renamed when complete: nothing half-written.
    tmp = tempfile.mkdtemp(prefix=".bulk_trace-", dir=os.path.dirname(os.path.abspath(out)))
    try:
        write_trace(tmp, ranks, rounds, sends, receives)
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return 0


def write_trace(out, ranks, rounds, sends, receives):
    with open(os.path.join(out, "index.txt"), "w") as index:
        for r in range(ranks):
            with open(os.path.join(out, f"r{r}.txt"), "w") as f:
                f.write(f"{r} init\n")
                for k in range(rounds):
                    requests = 0
                    for src, messages, size in receives[r]:
                        if k < messages:
                            f.write(f"{r} irecv {src} 0 {size} 6\n")
                            requests += 1
                    for dst, messages, size in sends[r]:
                        if k < messages:
                            f.write(f"{r} isend {dst} 0 {size} 6\n")
                            requests += 1
                    f.write(f"{r} waitall {requests}\n")
                f.write(f"{r} finalize\n")
            index.write(f"r{r}.txt\n")


if __name__ == "__main__":
    sys.exit(main())
