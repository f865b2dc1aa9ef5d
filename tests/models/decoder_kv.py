#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP test: a GPT-style decoder generating with its KV cache on the device.

A small decoder-only transformer (random weights, fixed seed) is exported
by Debian's torch at test time in the two forms a decoder's cache takes
(cached under build/models/decoder_kv/, keyed by this file's hash and
torch's version):

- growing: inputs input_ids, attention_mask, position_ids and
  past_key_values.L.key/value [1, heads, past, head_dim]; outputs logits
  and present.L.key/value = concat(past, new) (the HF export);
- static: a cache of fixed positions written in place by index_copy
  (ScatterElements) at cache_position, past and present of one shape.

torch's greedy generation of 32 tokens after a 5-token prompt is the
reference. npu-run --generate runs the growing model compiled online (a
shape per length, compiled once: a second generation compiles nothing),
the static model online and as a .om with two gears
(the prompt's length and 1), and each must give the same 32 tokens. What
crossed between host and device is the runtime's own count: per step the
token ids (and mask, positions) in and one row of logits out, and no byte
of the cache (the --profile trace says it per step). Refusals: a model
that is no decoder, a static cache too short for the generation.

Usage: decoder_kv.py
"""

import hashlib
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npu_e2e as e2e  # noqa: E402

SEED = 18
VOCAB, DIM, HEADS, LAYERS, POSITIONS = 96, 48, 4, 2, 64


def configure(vocab, dim, heads, layers, positions):
    """Another size of the decoder (make bench-models' larger one)."""
    global VOCAB, DIM, HEADS, LAYERS, POSITIONS
    VOCAB, DIM, HEADS, LAYERS, POSITIONS = vocab, dim, heads, layers, \
        positions
PROMPT = [5, 17, 3, 88, 41]
NEW = 32


def model(static):
    """The decoder; @static: the fixed-size cache form."""
    import torch
    nn = torch.nn
    hd = DIM // HEADS

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
            self.qkv, self.proj = nn.Linear(DIM, 3 * DIM), nn.Linear(DIM, DIM)
            self.fc1, self.fc2 = nn.Linear(DIM, 4 * DIM), nn.Linear(4 * DIM, DIM)

        def forward(self, x, pk, pv, keep):
            b, s, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(DIM, 2)
            q, k, v = (t.view(b, s, HEADS, hd).transpose(1, 2)
                       for t in (q, k, v))
            if static:
                k, v = pk.index_copy(2, keep[1], k), pv.index_copy(2, keep[1], v)
            else:
                k, v = torch.cat([pk, k], 2), torch.cat([pv, v], 2)
            a = (q @ k.transpose(2, 3)) * hd ** -0.5
            a = a.masked_fill(~keep[0], float("-inf")).softmax(-1)
            y = (a @ v).transpose(1, 2).reshape(b, s, DIM)
            x = x + self.proj(y)
            x = x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))
            return x, k, v

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(VOCAB, DIM)
            self.pos = nn.Embedding(POSITIONS, DIM)
            self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
            self.lnf = nn.LayerNorm(DIM)
            self.head = nn.Linear(DIM, VOCAB, bias=False)

        def forward(self, ids, a, b, *past):
            if static:      # a: cache_position [s]
                keys = torch.arange(POSITIONS).unsqueeze(0)
                keep = (keys <= a.unsqueeze(1), a)
                x = self.tok(ids) + self.pos(a)
            else:           # a: attention_mask [1, past + s], b: positions
                n = a.shape[1]
                causal = torch.arange(n).unsqueeze(0) <= \
                    (b[0] + n - ids.shape[1] - b[0, :1]).unsqueeze(1)
                keep = (causal & a.bool()[:, None, None, :], None)
                x = self.tok(ids) + self.pos(b)
            out = []
            for i, blk in enumerate(self.blocks):
                x, k, v = blk(x, past[2 * i], past[2 * i + 1], keep)
                out += [k, v]
            return (self.head(self.lnf(x)),) + tuple(out)

    torch.manual_seed(SEED)
    m = Decoder().eval()
    with torch.no_grad():   # logits with a spread: argmax ties are unlikely
        m.head.weight.mul_(4.0)
    return m


def cache_names():
    ins = ["past_key_values.%d.%s" % (i // 2, "value" if i % 2 else "key")
           for i in range(2 * LAYERS)]
    return ins, [n.replace("past_key_values", "present") for n in ins]


def empty_cache(static):
    import torch
    n = POSITIONS if static else 0
    return [torch.zeros(1, HEADS, n, DIM // HEADS) for _ in range(2 * LAYERS)]


def torch_generate(m, static):
    """Greedy tokens of torch, the reference."""
    import torch
    past, ids, n, toks = empty_cache(static), torch.tensor([PROMPT]), 0, []
    with torch.no_grad():
        for _ in range(NEW):
            s = ids.shape[1]
            pos = torch.arange(n, n + s)
            if static:
                out = m(ids, pos, None, *past)
            else:
                out = m(ids, torch.ones(1, n + s, dtype=torch.int64),
                        pos.unsqueeze(0), *past)
            past, n = out[1:], n + s
            toks.append(int(out[0][0, -1].argmax()))
            ids = torch.tensor([[toks[-1]]])
    return toks


def export(d, static):
    import torch
    m = model(static)
    pin, pout = cache_names()
    ids = torch.tensor([PROMPT])
    if static:
        args = (ids, torch.arange(5), None, *empty_cache(True))
        names = ["input_ids", "cache_position"] + pin
        dyn = {"input_ids": {1: "seq"}, "cache_position": {0: "seq"},
               "logits": {1: "seq"}}
    else:
        past = [torch.zeros(1, HEADS, 3, DIM // HEADS)
                for _ in range(2 * LAYERS)]
        args = (ids, torch.ones(1, 8, dtype=torch.int64),
                torch.arange(3, 8).unsqueeze(0), *past)
        names = ["input_ids", "attention_mask", "position_ids"] + pin
        dyn = {"input_ids": {1: "seq"}, "attention_mask": {1: "total"},
               "position_ids": {1: "seq"}, "logits": {1: "seq"}}
        for n in pin:
            dyn[n] = {2: "past"}
        for n in pout:
            dyn[n] = {2: "total"}
    path = os.path.join(d, "static.onnx" if static else "growing.onnx")
    torch.onnx.export(m, args, path, input_names=names,
                      output_names=["logits"] + pout, dynamic_axes=dyn,
                      opset_version=14)
    return path, torch_generate(m, static)


def four_inputs(d):
    """A one-layer decoder with every input the runtime fills in (ids, a
    growing mask, position_ids and cache_position) and a growing cache;
    returns its path and torch's first token after an 8-token prompt (a
    prompt longer than the generation: the host inputs' largest step)."""
    import torch
    nn = torch.nn

    class Four(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(VOCAB, 8), nn.Embedding(64, 8)
            self.head = nn.Linear(8, VOCAB)

        def forward(self, ids, mask, pos, cpos, pk):
            x = self.tok(ids) + self.pos(pos) + self.pos(cpos).unsqueeze(0)
            x = x * mask.float().mean()
            k = torch.cat([pk, x.unsqueeze(1)], 2)
            return self.head(x + k.mean(2)), k

    torch.manual_seed(SEED)
    m = Four().eval()
    ids = torch.tensor([PROMPT + [7, 9, 11]])
    s = ids.shape[1]
    args = (ids, torch.ones(1, s, dtype=torch.int64),
            torch.arange(s).unsqueeze(0), torch.arange(s),
            torch.zeros(1, 1, 0, 8))
    path = os.path.join(d, "four_inputs.onnx")
    torch.onnx.export(
        m, args, path, input_names=["input_ids", "attention_mask",
                                    "position_ids", "cache_position",
                                    "past_key_values.0.key"],
        output_names=["logits", "present.0.key"],
        dynamic_axes={"input_ids": {1: "seq"}, "attention_mask": {1: "total"},
                      "position_ids": {1: "seq"}, "cache_position": {0: "seq"},
                      "past_key_values.0.key": {2: "past"},
                      "logits": {1: "seq"}, "present.0.key": {2: "total"}},
        opset_version=14)
    with torch.no_grad():
        tok = int(m(*args)[0][0, -1].argmax())
    return path, ids[0].tolist(), tok


def prepare(out):
    """Export both forms once; returns the directory and its reference."""
    import torch
    with open(os.path.abspath(__file__), "rb") as f:
        stamp = hashlib.sha256(f.read() + torch.__version__.encode() + str(
            (VOCAB, DIM, HEADS, LAYERS, POSITIONS)).encode()).hexdigest()
    sp, rp = os.path.join(out, "stamp"), os.path.join(out, "ref.json")
    if os.path.exists(sp) and open(sp).read().strip() == stamp and \
            os.path.exists(rp):
        return json.load(open(rp))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    ref = {}
    for static in (False, True):
        path, toks = export(out, static)
        ref["static" if static else "growing"] = {"onnx": path,
                                                  "tokens": toks}
    path, prompt, tok = four_inputs(out)
    ref["four_inputs"] = {"onnx": path, "prompt": prompt, "tokens": [tok]}
    with open(rp, "w") as f:
        json.dump(ref, f)
    with open(sp, "w") as f:
        f.write(stamp + "\n")
    return ref


def generate(model_path, extra=()):
    """npu-run --generate: (exit status, JSON summary or None, output)."""
    tmp = tempfile.mkdtemp()
    js, tr = os.path.join(tmp, "gen.json"), os.path.join(tmp, "trace.json")
    argv = [e2e.tool("npu-run"), model_path, "--generate", str(NEW),
            "--prompt", ",".join(map(str, PROMPT)), "--json", js,
            "--profile", tr] + list(extra)
    # under ASan dlopen() does not search npu-run's RUNPATH
    lib = os.path.join(e2e.BUILD, "lib", "libnpuc.so.1")
    rc, out = e2e.run(argv, env={"NPURT_NPUC_LIB": lib}
                      if os.path.exists(lib) else None)
    res = None
    if rc == 0 and os.path.exists(js):
        res = json.load(open(js))
        res["trace"] = json.load(open(tr))["traceEvents"]
    shutil.rmtree(tmp)
    return rc, res, e2e.cmdline(argv) + "\n" + out


def check_run(t, what, run, ref, h2d, compiles):
    """The tokens, the copies the runtime counted, the per-step trace;
    @h2d(k): the bytes step k gives the model from the host."""
    rc, res, out = run
    if not t.ok(rc == 0 and res["tokens"] == ref,
                "%s: the %d tokens of torch" % (what, NEW)):
        t.diag(out if rc else "npu   %s\ntorch %s" % (res["tokens"], ref))
        res = None
    res = res or {"new_tokens": 0, "trace": [], "cache_host_bytes": -1,
                  "h2d_bytes": -1, "d2h_bytes": -1, "cache_bytes": 0,
                  "cache_tensors": 0, "shapes_compiled": -1,
                  "tokens_per_s_median": 0}
    steps = res["new_tokens"]
    t.ok(res["cache_host_bytes"] == 0 and
         res["h2d_bytes"] == sum(h2d(k) for k in range(steps)) and
         res["d2h_bytes"] == steps * VOCAB * 4 and
         res["cache_bytes"] > 0 and res["cache_tensors"] == 2 * LAYERS,
         "%s: the cache (%d bytes) stays on the device; the host copies "
         "are the ids in (%d bytes) and a row of logits a step out (%d)" %
         (what, res["cache_bytes"], res["h2d_bytes"], res["d2h_bytes"]))
    ev = [e for e in res["trace"] if e.get("ph") == "X"]
    t.ok(steps and len(ev) == steps and
         all(e["args"]["d2h_bytes"] == VOCAB * 4 and
             e["args"]["h2d_bytes"] == h2d(k) for k, e in enumerate(ev)),
         "%s: the profile's %d steps each copy their ids in and %d bytes "
         "out" % (what, len(ev), VOCAB * 4))
    t.ok(compiles(res["shapes_compiled"]),
         "%s: %d shapes compiled on demand, %.1f tokens/s" %
         (what, res["shapes_compiled"], res["tokens_per_s_median"]))


def refused(t, what, model_path, extra, words):
    rc, _, out = generate(model_path, extra)
    if not t.ok(rc == 2 and all(w in out for w in words),
                "%s is refused (exit 2) saying %s" % (what, words)):
        t.diag(out)


def main():
    miss = e2e.missing_tools("npuc", "npu-run")
    if miss:
        print("1..0 # SKIP %s not built yet" % " and ".join(miss))
        return 0
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    torch.set_num_threads(1)
    t = e2e.Tap(1 + 3 * 4 + 1 + 2 + 1)
    # the exports are the same for the sanitizer build's run: one cache
    ref = prepare(os.path.join(e2e.ROOT, "build", "models", "decoder_kv"))
    grow, stat = ref["growing"], ref["static"]
    p = len(PROMPT)
    t.ok(grow["tokens"] == stat["tokens"],
         "torch: both cache forms of the decoder give the same tokens %s..."
         % grow["tokens"][:8])

    # growing cache, online: the warm-up generation compiles each length,
    # the timed ones find all 33 in the shape cache; a step's ids, mask
    # (past + new) and positions in
    check_run(t, "growing cache, ONNX",
              generate(grow["onnx"], ["--warmup", "1", "--loop", "2"]),
              grow["tokens"],
              lambda k: 8 * (3 * p) if k == 0 else 8 * (2 + p + k),
              lambda c: c == 0)

    # static cache, online and ahead of time: two shapes, no recompile
    def static_h2d(k):
        return 16 * (p if k == 0 else 1)
    check_run(t, "static cache, ONNX", generate(stat["onnx"]),
              stat["tokens"], static_h2d, lambda c: c == 1)
    om = os.path.join(os.path.dirname(stat["onnx"]), "static.om")
    rc, out = e2e.run([e2e.tool("npuc"), stat["onnx"], "-o", om,
                       "--dynamic-dims", "%d;1" % p])
    if not t.ok(rc == 0, "npuc compiles the static decoder with gears "
                "seq=%d and seq=1" % p):
        t.diag(out)
    check_run(t, "static cache, .om", generate(om), stat["tokens"],
              static_h2d, lambda c: c == 0)

    # every input the runtime fills in, the prompt longer than the rest
    four = ref["four_inputs"]
    rc, res, out = generate(four["onnx"], ["--generate", "1", "--prompt",
                                           ",".join(map(str, four["prompt"]))])
    if not t.ok(rc == 0 and res["tokens"] == four["tokens"],
                "ids, mask, position_ids and cache_position, a prompt of "
                "%d and one token: torch's %s" % (len(four["prompt"]),
                                                  four["tokens"])):
        t.diag(out if rc else "npu %s" % res["tokens"])

    # refusals that say what to do
    refused(t, "a classifier", os.path.join(e2e.ROOT, "models", "tinynet",
                                             "model.onnx"), [],
            ["no token input", "input_ids"])
    refused(t, "a static cache too short", stat["onnx"],
            ["--generate", str(POSITIONS)],
            ["%d positions" % (p + POSITIONS - 1), "holds %d" % POSITIONS])
    t.exit()


if __name__ == "__main__":
    sys.exit(main())
