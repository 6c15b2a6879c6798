# SPDX-License-Identifier: GPL-2.0
"""What every benchmark script shares: where kmatrix is, its cache, how
to say things and the machine a figure was measured on."""
import os
import platform
import socket
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KMATRIX = os.path.join(TOP, "build", "kmatrix")
NAME = os.path.basename(sys.argv[0])


def say(msg):
    print("%s: %s" % (NAME, msg), flush=True)


def die(msg):
    print("%s: %s" % (NAME, msg), file=sys.stderr, flush=True)
    sys.exit(2)


def kmatrix_cache():
    c = os.environ.get("KMATRIX_CACHE")
    if c:
        return c
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "kmatrix")


def machine():
    """The host and the project commit: every figure carries them."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    osrel = ""
    if os.path.exists("/etc/os-release"):
        for line in open("/etc/os-release"):
            if line.startswith("PRETTY_NAME="):
                osrel = line.split("=", 1)[1].strip().strip('"')
    head = subprocess.run(["git", "-C", TOP, "rev-parse", "--short=12", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    return {"host": socket.gethostname(), "cpu": model, "cores": os.cpu_count(),
            "mem_gib": round(mem, 1), "os": osrel, "kernel": platform.release(),
            "project_commit": head}
