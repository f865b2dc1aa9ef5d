#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The differential fuzzer of npuc (Documentation/difftest.rst).

  difftest.py --tap [--seeds A:B]          bounded run (make check), TAP
  difftest.py --regress [--tap]            the minimized regression cases
  difftest.py --campaign N [--start S] [--jobs J] [--ort] [--json F]
                                           long run, counts per class
  difftest.py --seed S [--shrink] [--save F.json]
                                           one graph, verbose
  difftest.py --repro F.json [--shrink] [--save F.json]
                                           one stored graph, verbose

Every graph is generated from its seed alone (dt_gen), so a seed names a
test case forever (for one version of the generator).
"""

import argparse
import collections
import hashlib
import json
import multiprocessing
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dt_gen     # noqa: E402
import dt_graph   # noqa: E402
import dt_known   # noqa: E402
import dt_ort     # noqa: E402
import dt_run     # noqa: E402
import dt_shrink  # noqa: E402

REGRESS = os.path.join(HERE, "regress")


def workdir(name):
    d = os.path.join(dt_run.BUILD, "difftest", "work", "%s-%d" %
                     (name, os.getpid()))
    return d


def judge(g, work, ort=None, shrink_budget=30, keep=False):
    """Run g; on failure shrink it and match the known bugs.

    Returns a dict: cls, sigs, failures (text), known (list of ids or
    None per failure sig), unknown (sigs not known), minimized (graph or
    None), ort (status)."""
    out = dt_run.run_case(g, work, ort=ort, keep=keep)
    res = {"cls": out.cls, "sigs": out.sigs(), "ort": out.ort,
           "failures": [repr(f) for f in out.failures], "known": {},
           "unknown": [], "minimized": None, "notes": out.notes,
           "ort_cls": None}
    if ort is not None:
        res["ort_cls"] = ort_class(out)
    seen = set()
    # one representative failure per signature, worst first
    for f in sorted(out.failures, key=lambda f: dt_run.SEVERITY[f.cls]):
        if f.sig() in seen:
            continue
        seen.add(f.sig())
        k = dt_known.match(f, g)
        m = None
        if k is None and shrink_budget > 0:
            m, _ = dt_shrink.shrink(g, f.sig(), work, ort=ort,
                                    budget_s=shrink_budget)
            k = dt_known.match(f, m)
            if res["minimized"] is None:
                res["minimized"] = m
        if k:
            res["known"][f.sig()] = k[0]
        else:
            res["unknown"].append(f.sig())
            if m is not None and res["minimized"] is None:
                res["minimized"] = m
    return res


def ort_class(out):
    """The outcome against ONNX Runtime alone."""
    if out.ort is None:
        return None
    if out.ort != "ok":
        return "ort-failed"
    mine = [f for f in out.failures if f.check == "npu-vs-ort"]
    if mine:
        return "wrong"
    # the device side failing on its own
    dev = [f for f in out.failures if f.cls != "wrong"]
    if dev:
        return min((f.cls for f in dev), key=dt_run.SEVERITY.get)
    return "pass"


def describe(g):
    return " ".join(g.ops())


# ---------------------------------------------------------------- TAP

def tap_run(seeds, budget_s):
    t0 = time.time()
    print("1..%d" % len(seeds), flush=True)
    bad = 0
    counts = collections.Counter()
    for i, s in enumerate(seeds, 1):
        g, _ = dt_gen.generate(s)
        left = budget_s - (time.time() - t0)
        res = judge(g, workdir("tap"), shrink_budget=min(20, max(0, left)))
        counts[res["cls"]] += 1
        what = "seed %d (%d nodes: %s)" % (s, len(g.nodes),
                                          describe(g)[:80])
        if res["cls"] == "pass":
            print("ok %d - %s" % (i, what), flush=True)
            continue
        if not res["unknown"]:
            ids = sorted(set(res["known"].values()))
            print("not ok %d - %s # TODO known bug %s" %
                  (i, what, ", ".join("%s (%s)" % (k, _known_text(k))
                                      for k in ids)), flush=True)
            continue
        bad += 1
        print("not ok %d - %s" % (i, what), flush=True)
        for f in res["failures"][:6]:
            print("#   " + f[:300])
        if res["minimized"] is not None:
            p = os.path.join(dt_run.BUILD, "difftest", "fail-%d.json" % s)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            dt_graph.save_json(res["minimized"], p,
                               {"seed": s, "sigs": res["unknown"]})
            print("#   minimized (%d nodes: %s): %s" %
                  (len(res["minimized"].nodes),
                   describe(res["minimized"]), p))
    print("# %s in %.1f s" % (dict(counts), time.time() - t0))
    shutil.rmtree(workdir("tap"), ignore_errors=True)
    return 1 if bad else 0


def _known_text(kid):
    for k, owner, text, _ in dt_known.KNOWN:
        if k == kid:
            return "for %s: %s" % (owner, text)
    return "?"


def regress_run(tap):
    files = sorted(f for f in os.listdir(REGRESS) if f.endswith(".json"))
    if tap:
        print("1..%d" % len(files), flush=True)
    bad = 0
    for i, fn in enumerate(files, 1):
        g, meta = dt_graph.load_json(os.path.join(REGRESS, fn))
        res = judge(g, workdir("regress"), shrink_budget=0)
        what = "%s (%s)" % (fn, meta.get("bug", ""))
        if res["cls"] == "pass":
            line = "ok %d - %s" % (i, what)
        elif not res["unknown"]:
            ids = sorted(set(res["known"].values()))
            line = "not ok %d - %s # TODO known bug %s" % (
                i, what, ", ".join("%s (%s)" % (k, _known_text(k))
                                   for k in ids))
        else:
            bad += 1
            line = "not ok %d - %s" % (i, what)
            for f in res["failures"][:6]:
                line += "\n#   " + f[:300]
        print(line, flush=True)
    shutil.rmtree(workdir("regress"), ignore_errors=True)
    return 1 if bad else 0


# ---------------------------------------------------------------- campaign

_worker_ort = None


def _init_worker(use_ort):
    global _worker_ort
    if use_ort:
        _worker_ort = dt_ort.Ort(dt_run.BUILD)


def _campaign_one(seed):
    try:
        g, _ = dt_gen.generate(seed)
    except Exception as e:
        return {"seed": seed, "cls": "generator", "error": str(e)}
    work = workdir("c%d" % seed)
    res = judge(g, work, ort=_worker_ort, shrink_budget=45)
    shutil.rmtree(work, ignore_errors=True)
    r = {"seed": seed, "cls": res["cls"], "sigs": res["sigs"],
         "known": res["known"], "unknown": res["unknown"],
         "ort": res["ort"], "ort_cls": res["ort_cls"],
         "failures": res["failures"][:4], "nodes": len(g.nodes)}
    if res["minimized"] is not None:
        r["minimized"] = dt_graph.to_json(res["minimized"])
        r["min_ops"] = describe(res["minimized"])
    return r


def _report(n, done, start, t0, classes, vs_ort, use_ort, ort_errors,
            known, unknown, examples):
    return {
        "graphs": n, "graphs_done": done, "first_seed": start,
        "seconds": round(time.time() - t0, 1),
        "classes": {c: classes.get(c, 0) for c in dt_run.CLASSES},
        "vs_ort": ({c: vs_ort.get(c, 0) for c in
                    dt_run.CLASSES + ["ort-failed"]} if use_ort else None),
        "ort_errors": dict(ort_errors.most_common(20)),
        "known_bugs": dict(known),
        "new_bug_signatures": dict(unknown),
        "examples": examples,
    }


def campaign(n, start, jobs, use_ort, json_path, outdir):
    t0 = time.time()
    seeds = list(range(start, start + n))
    classes = collections.Counter()
    vs_ort = collections.Counter()
    known = collections.Counter()
    unknown = collections.Counter()
    examples = {}
    ort_errors = collections.Counter()
    os.makedirs(os.path.join(outdir, "bugs"), exist_ok=True)
    with multiprocessing.Pool(jobs, _init_worker, (use_ort,)) as pool:
        for k, r in enumerate(pool.imap_unordered(_campaign_one, seeds,
                                                  chunksize=4), 1):
            classes[r["cls"]] += 1
            if r.get("ort_cls"):
                vs_ort[r["ort_cls"]] += 1
                if r["ort_cls"] == "ort-failed":
                    ort_errors[(r["ort"] or "")[:120]] += 1
            for kid in set(r.get("known", {}).values()):
                known[kid] += 1
            for sig in r.get("unknown", []):
                key = sig
                unknown[key] += 1
                if key in examples:
                    continue
                if True:
                    examples[key] = {"seed": r["seed"],
                                     "failures": r["failures"],
                                     "min_ops": r.get("min_ops")}
                    if "minimized" in r:
                        h = hashlib.sha1(key.encode()).hexdigest()[:10]
                        p = os.path.join(outdir, "bugs", "%s-seed%d.json"
                                         % (h, r["seed"]))
                        with open(p, "w") as f:
                            m = r["minimized"]
                            m["meta"] = {"seed": r["seed"], "sig": key}
                            json.dump(m, f, indent=1, sort_keys=True)
                        examples[key]["file"] = p
            if k % 100 == 0 or k == n:
                print("%d/%d graphs, %.0f s: %s%s" % (
                    k, n, time.time() - t0, dict(classes),
                    (" vs ORT %s" % dict(vs_ort)) if use_ort else ""),
                    flush=True)
                report = _report(n, k, start, t0, classes, vs_ort,
                                 use_ort, ort_errors, known, unknown,
                                 examples)
                # rewritten as it goes: a cut-short campaign keeps its
                # figures ("graphs_done")
                with open(json_path + ".tmp", "w") as f:
                    json.dump(report, f, indent=1, sort_keys=True)
                    f.write("\n")
                os.replace(json_path + ".tmp", json_path)
    print(json.dumps({k: report[k] for k in ("graphs", "graphs_done",
                                             "classes", "vs_ort",
                                             "known_bugs")}))
    for k, v in unknown.most_common():
        print("NEW %5d %s  e.g. %s" % (v, k, examples[k].get("file") or
                                       examples[k]["seed"]))
    return 0


# ---------------------------------------------------------------- one case

def one(g, args, label):
    ort = dt_ort.Ort(dt_run.BUILD) if args.ort else None
    work = os.path.join(dt_run.BUILD, "difftest", label)
    for n in g.nodes:
        print("  %s %s -> %s %s" % (n.op, n.inputs, n.outputs,
                                    {k: (v.tolist() if hasattr(v, "tolist")
                                         else v) for k, v in
                                     n.attrs.items()}))
    print("  inputs %s outputs %s" % (g.inputs, g.outputs))
    out = dt_run.run_case(g, work, ort=ort, keep=True)
    print("%s: %s (work dir %s)" % (label, out.cls, work))
    for f in out.failures:
        print("  " + repr(f)[:400])
    for f in out.failures:
        k = dt_known.match(f, g)
        if k:
            print("  known: %s (%s)" % (k[0], _known_text(k[0])))
    m = g
    if out.failures and args.shrink:
        f = out.first()
        m, trials = dt_shrink.shrink(g, f.sig(), work, ort=ort,
                                     budget_s=args.shrink_budget)
        print("minimized in %d trials to %d nodes: %s" % (
            trials, len(m.nodes), describe(m)))
        for n in m.nodes:
            print("  %s %s -> %s %s" % (n.op, n.inputs, n.outputs,
                                        n.attrs))
        print("  inputs %s" % (m.inputs,))
    if args.save:
        meta = {"sig": out.first().sig() if out.failures else "pass"}
        if args.bug:
            meta["bug"] = args.bug
        dt_graph.save_json(m, args.save, meta)
        print("saved " + args.save)
    if ort:
        ort.close()
    return 0 if out.cls == "pass" else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.
                                 RawDescriptionHelpFormatter)
    ap.add_argument("--tap", action="store_true")
    ap.add_argument("--seeds", default="0:300")
    ap.add_argument("--budget", type=float, default=150.0,
                    help="seconds of shrinking in the TAP run")
    ap.add_argument("--regress", action="store_true")
    ap.add_argument("--campaign", type=int)
    ap.add_argument("--start", type=int, default=1000000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ort", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--outdir")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--repro")
    ap.add_argument("--shrink", action="store_true")
    ap.add_argument("--shrink-budget", type=float, default=60)
    ap.add_argument("--save")
    ap.add_argument("--bug", help="what the saved case is a regression of")
    args = ap.parse_args()
    if args.ort and not dt_ort.available(dt_run.BUILD):
        sys.exit("difftest: ONNX Runtime is not installed in %s; run "
                 "`make difftest-ort`" % dt_ort.ort_dir(dt_run.BUILD))
    missing = [t for t in ("npuc", "npu-run", "npuc-fe")
               if not os.access(dt_run.tool(t), os.X_OK)]
    if missing:
        if args.tap or (args.regress and args.tap):
            print("1..0 # SKIP not built: %s" % " ".join(missing))
            return 0
        sys.exit("difftest: not built: %s" % " ".join(missing))
    if args.regress:
        return regress_run(args.tap)
    if args.tap:
        a, b = (int(v) for v in args.seeds.split(":"))
        return tap_run(list(range(a, b)), args.budget)
    if args.campaign:
        outdir = args.outdir or os.path.join(dt_run.BUILD, "difftest")
        js = args.json or os.path.join(outdir, "campaign.json")
        return campaign(args.campaign, args.start, args.jobs, args.ort, js,
                        outdir)
    if args.seed is not None:
        g, _ = dt_gen.generate(args.seed)
        return one(g, args, "seed-%d" % args.seed)
    if args.repro:
        g, _ = dt_graph.load_json(args.repro)
        return one(g, args, "repro-" + os.path.basename(args.repro))
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
