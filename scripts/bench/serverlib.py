# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The Imago authors

"""scripts/bench-server's plumbing (bench-isolation and bench-traffic use it through that script):
commands, ports, stopping servers, the CPU and RSS of a process tree, and driving wrk."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

CORES = os.cpu_count() or 1


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, what, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            sys.exit(f"bench-server: {what} exited at start")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    proc.kill()
    sys.exit(f"bench-server: {what} did not start on port {port}")


def stop(proc):
    try:
        os.killpg(proc.pid, signal.SIGTERM) if proc.pid == os.getpgid(proc.pid) else proc.terminate()
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


# MARK: measuring

def tree_pids(pid):
    """`pid` and all its descendants."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, IndexError):
            continue
    out, stack = [], [pid]
    while stack:
        p = stack.pop()
        out.append(p)
        stack.extend(children.get(p, []))
    return out


def tree_cpu(pid):
    """CPU seconds (user + system) used so far by `pid` and its descendants, those that have
    exited and been waited for included (their parents' cutime and cstime: the decoder workers a
    server replaces): with the request count, the CPU a request costs, steadier on a shared
    machine than requests per second."""
    total = 0
    for p in tree_pids(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
        except (OSError, IndexError, ValueError):
            continue
    return total / os.sysconf("SC_CLK_TCK")


def tree_rss(pid, parts=None):
    """Resident memory of `pid` and all its descendants, in bytes; `parts` (a dict), when given,
    gets the anonymous and the file-backed shares (RssAnon, RssFile: mapped files, the binary)."""
    total = 0
    for p in tree_pids(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
                    elif parts is not None and line.startswith(("RssAnon:", "RssFile:")):
                        key = line.split(":")[0]
                        parts[key] = parts.get(key, 0) + int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class RSSSampler:
    def __init__(self, pid, interval=0.5):
        self.pid, self.interval, self.samples, self.stopped = pid, interval, [], False
        self.start = time.time()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        self.peak_parts = {}
        while not self.stopped:
            parts = {}
            self.samples.append((time.time() - self.start, tree_rss(self.pid, parts)))
            for key, value in parts.items():
                self.peak_parts[key] = max(self.peak_parts.get(key, 0), value)
            time.sleep(self.interval)

    def stop(self):
        self.stopped = True
        self.thread.join()
        return max((s[1] for s in self.samples), default=0)


LUA = """
local counter = 0
local threads = {}
function setup(thread)
    thread:set("tid", #threads)
    table.insert(threads, thread)
end
function init(args)
    counter = (tid or 0) * 10000000
end
function request()
    counter = counter + 1
    -- A new box on every request, and the threads' sequences 100 rows of boxes apart, so no
    -- two requests in a run ask for the same size of the same image.
    local w = 200 + counter % 200
    local h = 200 + (math.floor(counter / 200) + (tid or 0) * 100) % 200
    -- ALIASES source URLs per thread, taken in turn: more than a thread's connections, so two
    -- requests in flight never name the same source.
    local a = (tid or 0) * ALIASES + counter % ALIASES
    local path = (PATTERN):gsub("{w}", tostring(w)):gsub("{h}", tostring(h)):gsub("{n}", tostring(counter)):gsub("{a}", tostring(a))
    return wrk.format("GET", path)
end
"""

# Source URLs per wrk thread (see the Lua above); the warm-up requests each of them once.
ALIASES = 32


def wrk(base, pattern, connections, seconds, threads=None, *, out):
    """Runs the stream's requests (the Lua above, written into the folder `out`) and parses wrk's report."""
    script = os.path.join(out, "stream.lua")
    with open(script, "w") as f:
        f.write(LUA.replace("PATTERN", json.dumps(pattern)).replace("ALIASES", str(ALIASES)))
    threads = threads or max(1, min(connections, CORES))
    done = subprocess.run(["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--timeout", "30s", "--latency",
                           "-s", script, base], text=True, capture_output=True)
    out = done.stdout
    if done.returncode != 0 or "error" in done.stderr.lower():
        sys.exit(f"bench-server: wrk failed: {done.stderr.strip()[:500]}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)) if "Requests/sec" in out else 0.0

    def latency(p):
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)", out, re.M)
        if not m:
            return None
        v = float(m.group(1))
        return v / 1000 if m.group(2) == "us" else v * 1000 if m.group(2) == "s" else v
    non2xx = int(re.search(r"Non-2xx or 3xx responses: (\d+)", out).group(1)) if "Non-2xx" in out else 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    socket_errors = sum(int(x) for x in m.groups()) if m else 0
    return {"rps": rps, "p50": latency(50), "p99": latency(99), "non2xx": non2xx, "socket_errors": socket_errors, "raw": out}


def warm(base, pattern):
    """Every source URL of the stream once (into the server's source cache), code paths loaded."""
    for t in range(CORES):
        for a in range(ALIASES):
            n = t * ALIASES + a
            path = pattern.replace("{w}", "300").replace("{h}", "300").replace("{n}", str(n)).replace("{a}", str(n))
            try:
                subprocess.run(["curl", "-s", "-o", "/dev/null", "--max-time", "60", base + path], check=False)
            except OSError:
                pass
