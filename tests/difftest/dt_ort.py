# SPDX-License-Identifier: MIT
"""ONNX Runtime through a long-lived node process (ort_run.js)."""

import json
import os
import select
import subprocess

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def ort_dir(build):
    return os.path.join(build, "ort", "node_modules")


def available(build):
    return os.path.isdir(os.path.join(ort_dir(build), "onnxruntime-node"))


class Ort:
    def __init__(self, build, timeout=60):
        self.build = build
        self.timeout = timeout
        self.p = None

    def start(self):
        env = dict(os.environ)
        env["NODE_PATH"] = ort_dir(self.build)
        self.p = subprocess.Popen(["node", os.path.join(HERE, "ort_run.js")],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, env=env,
                                  stderr=subprocess.DEVNULL, text=True,
                                  bufsize=1)

    def close(self):
        if self.p:
            self.p.stdin.close()
            try:
                self.p.wait(5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
            self.p = None

    def run(self, case):
        """Outputs of case (dt_run.Case) from ORT: (list or None, status)."""
        if self.p is None or self.p.poll() is not None:
            self.start()
        g = case.g
        req = {"model": case.model, "outdir": case.work,
               "outputs": list(g.outputs),
               "inputs": [{"name": n, "dtype": dt, "shape": list(s),
                           "file": os.path.join(case.work,
                                                "input_%d.bin" % k)}
                          for k, (n, dt, s) in enumerate(g.inputs)]}
        self.p.stdin.write(json.dumps(req) + "\n")
        r, _, _ = select.select([self.p.stdout], [], [], self.timeout)
        if not r:
            self.p.kill()
            self.p.wait()
            self.p = None
            return None, "ort-hang"
        line = self.p.stdout.readline()
        if not line:
            self.p = None
            return None, "ort-crash"
        rep = json.loads(line)
        if not rep["ok"]:
            return None, "ort-error: " + rep["error"].splitlines()[0][:200]
        outs = []
        for k, o in enumerate(rep["outputs"]):
            dt = np.dtype(o["dtype"])
            a = np.fromfile(o["file"], dtype=dt).reshape(o["shape"])
            outs.append(a)
        return outs, "ok"
