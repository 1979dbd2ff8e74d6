# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The Imago authors

"""scripts/bench-peers' settings (its paths and command-line options) and the measuring its parts share."""
import os
import shutil
import subprocess
import sys

# This file is scripts/bench/peerlib.py: the repository is three folders up.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "bench-out")
INPUTS = os.path.join(OUT, "inputs")
CORPUS = os.environ.get("IMAGO_CORPUS", os.path.join(os.path.dirname(ROOT), "shared", "corpus"))
TIE = 1.03  # differences under 3% are within this machine's run-to-run noise
ITERATIONS = int(sys.argv[sys.argv.index("--iterations") + 1]) if "--iterations" in sys.argv else 9
# Each peer runs in this many separate processes, interleaved with the other peers, so a burst of
# load on the machine hits every peer alike; the best round is kept.
ROUNDS = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
# Another `imago` binary (an earlier commit's build) for A/B runs of the whole-process parts.
IMAGO_CLI = sys.argv[sys.argv.index("--imago") + 1] if "--imago" in sys.argv else None
# An earlier `imago` run beside this one, in the same rounds (see --against in bench-peers' usage).
AGAINST = sys.argv[sys.argv.index("--against") + 1] if "--against" in sys.argv else None
FOLDER = os.path.join(INPUTS, "folder")
# Only the cases (rows) of the whole-process parts whose label contains this text.
CASE = sys.argv[sys.argv.index("--case") + 1] if "--case" in sys.argv else None


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


# Batch decoding: keep freed memory (malloc below 32 MiB from the heap, trim above 1 GiB).
GLIBC_TUNED = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824"


def measure(cmd):
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, text=True, capture_output=True)
    if r.returncode != 0:
        return None
    fields = r.stdout.split()
    median, best, w, h = fields[:4]
    rss_mb = int(r.stderr.strip().splitlines()[-1]) / 1024
    first = float(fields[4]) if len(fields) > 4 else float("nan")
    return float(median), float(best), f"{w}x{h}", rss_mb, first


def measure_process(cmd, out_dir):
    """Wall time (ms), peak RSS (MB) and files written of a whole process (or, for a list of
    commands, of that many processes at once: the largest peak) writing into a fresh out_dir."""
    import time
    cmds = cmd if isinstance(cmd[0], list) else [cmd]
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    start = time.perf_counter()
    procs = [subprocess.Popen(["/usr/bin/time", "-f", "%M"] + c, text=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE) for c in cmds]
    errs = [p.communicate()[1] for p in procs]
    wall = (time.perf_counter() - start) * 1000
    if any(p.returncode != 0 for p in procs):
        return None
    files = sum(len(f) for _, _, f in os.walk(out_dir))
    return wall, max(int(e.strip().splitlines()[-1]) for e in errs) / 1024, files


def with_before(peers):
    """`peers` with "Imago in process" (the same command with IMAGO_ISOLATED_FORMATS=none: what
    decoding in a sandboxed worker costs the command) and "Imago before" (the --against binary,
    same arguments) right after "Imago"."""
    out = []
    for peer, cmd in peers:
        out.append((peer, cmd))
        if peer == "Imago":
            out.append(("Imago in process", ["env", "IMAGO_ISOLATED_FORMATS=none"] + cmd))
            if AGAINST:
                out.append(("Imago before", [AGAINST] + cmd[1:]))
    return out


def best_runs(peers, out, check=None):
    """Each peer's best whole-process run over ROUNDS rounds (measure_process): the fastest run's
    time and the lowest peak seen, both the least disturbed; None for a peer that failed.
    `check(peer, m)` sees every successful run first."""
    best = {}
    for _ in range(ROUNDS):
        for peer, cmd in peers:
            m = measure_process(cmd, out)
            if m is None:
                best.setdefault(peer, None)
                continue
            if check:
                check(peer, m)
            old = best.get(peer)
            best[peer] = m if old is None else (min(old[0], m[0]), min(old[1], m[1]), m[2])
    return best
