#!/usr/bin/python3
"""validate-speedscope.py SCHEMA FILE... - check speedscope files written by wcanalyze export.

Each FILE is validated against SCHEMA, speedscope's published JSON schema of its file format
(draft-07), with Debian's python3-jsonschema; then against what speedscope's importer
(importSpeedscopeProfile in src/lib/file-format.ts) needs beyond the schema: as many weights
as samples, frame indices inside shared.frames; and against what wcanalyze promises: integer
weights above 0, endValue - startValue equal to the sum of the weights.
Prints one line per file; exit 0 when all are valid, 1 otherwise, 77 without jsonschema.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed (apt-get install python3-jsonschema)")
    sys.exit(77)


def problems(schema, doc):
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    for e in sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.absolute_path)):
        yield "schema: %s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)",
                                  e.message[:200])
    if not isinstance(doc, dict) or not isinstance(doc.get("profiles"), list):
        return
    nframes = len(doc.get("shared", {}).get("frames", []))
    for i, p in enumerate(doc["profiles"]):
        if not isinstance(p, dict) or p.get("type") != "sampled":
            yield "profile %d: not a sampled profile" % i
            continue
        samples, weights = p.get("samples", []), p.get("weights", [])
        if len(samples) != len(weights):
            yield "profile %d: %d samples, %d weights" % (i, len(samples), len(weights))
        for s in samples:
            if not s or any(not isinstance(f, int) or f < 0 or f >= nframes for f in s):
                yield "profile %d: bad stack %s (%d frames)" % (i, s, nframes)
                break
        if any(not isinstance(w, int) or w <= 0 for w in weights):
            yield "profile %d: a weight is not an integer above 0" % i
        elif p.get("endValue", 0) - p.get("startValue", 0) != sum(weights):
            yield "profile %d: endValue - startValue %s, sum of weights %d" % (
                i, p.get("endValue", 0) - p.get("startValue", 0), sum(weights))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    bad = 0
    for path in sys.argv[2:]:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("FAIL %s: not JSON: %s" % (path, e))
            bad += 1
            continue
        errs = list(problems(schema, doc))
        if errs:
            bad += 1
            print("FAIL %s:" % path)
            for e in errs[:20]:
                print("  " + e)
        else:
            print("ok   %s: valid, %d profiles, %d frames" % (
                path, len(doc["profiles"]), len(doc["shared"]["frames"])))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
