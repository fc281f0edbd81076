"""Run named checks in a worker; each rank writes {name: "ok" or the traceback} as JSON to
``$CHECK_DIR/rank<R>.json`` (the ranks share one stdout, where lines can interleave)."""

import json
import os
import traceback


def run_checks(rank, checks):
    results = {}
    for name, fn in checks:
        try:
            fn()
            results[name] = "ok"
        except Exception:
            results[name] = traceback.format_exc()
    path = os.path.join(os.environ["CHECK_DIR"], f"rank{rank}.json")
    with open(path, "w") as f:
        json.dump(results, f)
