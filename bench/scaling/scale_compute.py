#!/usr/bin/env python3
"""Copy a SimGrid time-independent trace with every compute action scaled.

    bench/scaling/scale_compute.py INDEX FACTOR OUT_INDEX

The mini-apps are communication skeletons: the only computation a recording
sees is their payload stamping and checking, which makes communication
30-60% of a run. Multiplying every `compute <flops>` action by FACTOR models
an application with FACTOR times the arithmetic in the same places (the
computation's spread over ranks and phases stays as recorded), so one
recording gives several p_mpi. Every other line is copied as is; action
files go to OUT_INDEX_files/, named as in the input.
"""
import os
import sys

index, factor, out_index = sys.argv[1], float(sys.argv[2]), sys.argv[3]
index_dir = os.path.dirname(os.path.abspath(index))
out_dir = os.path.abspath(out_index) + "_files"
os.makedirs(out_dir, exist_ok=True)
entries = []
for line in open(index):
    name = line.strip()
    if not name or name.startswith("#"):
        continue
    src = name if os.path.isabs(name) else os.path.join(index_dir, name)
    dst = os.path.join(out_dir, os.path.basename(name))
    with open(src) as fin, open(dst, "w") as fout:
        for action in fin:
            words = action.split()
            if len(words) >= 3 and words[1] == "compute":
                words[2] = "%.17g" % (float(words[2]) * factor)
                action = " ".join(words) + "\n"
            fout.write(action)
    entries.append(dst)
with open(out_index, "w") as f:
    f.write("".join(e + "\n" for e in entries))
