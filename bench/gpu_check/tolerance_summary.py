#!/usr/bin/env python3
"""The worst share of each dtype's tolerance that verify runs used, from their JSON files.

Usage: tolerance_summary.py VERIFY.json...

Prints, per dtype (block runs; exact runs must be 0 and are listed apart), the largest share of
the element-wise tolerance any tensor used, the largest rel_l2 against its bound, and where
each was found: the numbers to calibrate verify/tolerance.cpp from.
"""
import json
import sys


def main(paths):
    worst = {}
    exact_errors = []
    for path in paths:
        with open(path) as f:
            runs = json.load(f)["runs"]
        for run in runs:
            where = f'{run["scheme"]} np={run["np"]}'
            for t in run["tensors"]:
                if run["exact"]:
                    if t["max_abs"] is None or t["max_abs"] != 0:
                        exact_errors.append(f'{where} {run["dtype"]} {t["name"]}: {t["max_abs"]}')
                    continue
                entry = worst.setdefault(run["dtype"], {"used": (0.0, ""), "l2": (0.0, 0.0, "")})
                used = t["tolerance_used"] if t["tolerance_used"] is not None else float("inf")
                if used > entry["used"][0]:
                    entry["used"] = (used, f'{where} {t["name"]}')
                bound = t["max_rel_l2"]
                rel = t["rel_l2"] if t["rel_l2"] is not None else float("inf")
                if bound is not None and bound != 0 and rel / bound > entry["l2"][0]:
                    entry["l2"] = (rel / bound, rel, f'{where} {t["name"]}')
    print("dtype  worst share of the element tolerance        worst rel_l2 (share of its bound)")
    for dtype in sorted(worst):
        used, used_at = worst[dtype]["used"]
        share, rel, rel_at = worst[dtype]["l2"]
        print(f"{dtype:<6} {100 * used:6.1f}% ({used_at}) {rel:9.2e} ({100 * share:5.1f}%, {rel_at})")
    if exact_errors:
        print("exact runs with an error (must be 0):")
        for e in exact_errors:
            print("  " + e)
        return 1
    print("exact runs: every error 0")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
