"""Run a script (``PATH ARGS``) or a module (``-m NAME ARGS``) and write, when the interpreter starts to
exit (the last ``atexit`` handler), the CPU time in ms of this process and of the children it waited for
to stderr, as ``cpu-probe {"self": ..., "children": ...}`` (bench_fixed_cost.py reads it)."""

import atexit
import json
import os
import resource
import runpy
import sys


def _report() -> None:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    doc = {
        "self": round((own.ru_utime + own.ru_stime) * 1000),
        "children": round((kids.ru_utime + kids.ru_stime) * 1000),
    }
    os.write(2, f"cpu-probe {json.dumps(doc)}\n".encode())


atexit.register(_report)  # registered first, so it runs last
if sys.argv[1] == "-m":
    sys.argv = sys.argv[2:]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
else:
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
