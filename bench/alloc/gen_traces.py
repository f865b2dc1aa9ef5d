#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the allocation traces of the allocation benchmark.

Every trace is derived from real model shapes and seeded, so the same
command writes the same bytes everywhere. Format, one operation per line:

    alloc ID SIZE STREAM     ID: unique integer, SIZE: bytes, STREAM: 0..
    free ID
    sync                     every stream's work so far has completed
    # comment

Traces:
  cnn_infer          ResNet-50 inference, batch and resolution per request
  transformer_infer  BERT-like encoder, batch and sequence length per request
  training           transformer training: forward keeps activations, backward
                     frees them in reverse; Adam state; dynamic padding
  kv_cache           decoder serving with continuous batching: per-sequence KV
                     caches grow (reallocate and copy) while others come and go
  adversarial        Robson-style: each phase leaves holes between survivors
                     that no later request fits

Usage: gen_traces.py OUTDIR [--scale small|full] [--seed N]
"""

import argparse
import os
import random
import sys


class Trace:
    """Collects operations; hands out ids; frees in the stream it allocated."""

    def __init__(self, name, seed):
        self.name = name
        self.lines = ["# trace %s seed %d" % (name, seed)]
        self.next_id = 0
        self.live = {}

    def alloc(self, size, stream=0):
        size = max(1, int(size))
        i = self.next_id
        self.next_id += 1
        self.lines.append("alloc %d %d %d" % (i, size, stream))
        self.live[i] = size
        return i

    def free(self, i):
        if i is None:
            return
        del self.live[i]
        self.lines.append("free %d" % i)

    def sync(self):
        self.lines.append("sync")

    def finish(self):
        for i in sorted(self.live):
            self.lines.append("free %d" % i)
        self.live.clear()
        return "\n".join(self.lines) + "\n"


F32 = 4
F16 = 2


def cnn_infer(rng, small):
    """ResNet-50 (bottleneck v1.5) inference, NCHW fp32, conv/BN folded."""
    t = Trace("cnn_infer", 0)
    stages = [(3, 64, 256, 1), (4, 128, 512, 2), (6, 256, 1024, 2),
              (3, 512, 2048, 2)]
    if small:
        stages = [(1, 16, 64, 1), (1, 32, 128, 2), (1, 64, 256, 2)]
    # weights, allocated once at model load
    weights = []
    cin = 3
    weights.append(t.alloc(64 * cin * 7 * 7 * F32))
    cin = 64
    for blocks, mid, out, _ in stages:
        for b in range(blocks):
            weights.append(t.alloc(mid * cin * F32))
            weights.append(t.alloc(mid * mid * 9 * F32))
            weights.append(t.alloc(out * mid * F32))
            weights.append(t.alloc((mid + out) * 2 * F32))  # bias/scale
            if b == 0:
                weights.append(t.alloc(out * cin * F32))
            cin = out
    weights.append(t.alloc(1000 * cin * F32))
    t.sync()
    requests = 6 if small else 24
    for _ in range(requests):
        batch = rng.choice([1, 2, 4, 8, 16] if not small else [1, 2, 4])
        res = rng.choice([160, 224, 256, 288] if not small else [64, 96])
        x = t.alloc(batch * 3 * res * res * F32, 1)   # upload stream
        h = res // 2
        c1 = t.alloc(batch * 64 * h * h * F32)
        t.free(x)
        h //= 2
        x = t.alloc(batch * 64 * h * h * F32)          # max pool
        t.free(c1)
        cin = 64
        for blocks, mid, out, stride in stages:
            for b in range(blocks):
                s = stride if b == 0 else 1
                ho = h // s
                a = t.alloc(batch * mid * h * h * F32)
                bb = t.alloc(batch * mid * ho * ho * F32)
                t.free(a)
                c = t.alloc(batch * out * ho * ho * F32)
                t.free(bb)
                d = None
                if b == 0:
                    d = t.alloc(batch * out * ho * ho * F32)
                y = t.alloc(batch * out * ho * ho * F32)
                t.free(c)
                t.free(d)
                t.free(x)
                x, h, cin = y, ho, out
        pooled = t.alloc(batch * cin * F32)
        t.free(x)
        logits = t.alloc(batch * 1000 * F32)
        t.free(pooled)
        host = t.alloc(batch * 1000 * F32, 1)           # download
        t.free(logits)
        t.free(host)
        if rng.random() < 0.3:
            t.sync()
    for w in weights:
        t.free(w)
    return t


def encoder_layer(t, batch, seq, hid, heads, ffn, keep=None, dt=F32):
    """One BERT layer's activations; returns the output id. With @keep, the
    tensors backward needs are appended to it instead of being freed."""
    def done(i):
        if keep is None:
            t.free(i)
        else:
            keep.append(i)
    x = t.last
    qkv = t.alloc(batch * seq * 3 * hid * dt)
    scores = t.alloc(batch * heads * seq * seq * dt)
    probs = t.alloc(batch * heads * seq * seq * dt)
    t.free(scores)
    ctx = t.alloc(batch * seq * hid * dt)
    done(probs)
    done(qkv)
    attn = t.alloc(batch * seq * hid * dt)
    done(ctx)
    x1 = t.alloc(batch * seq * hid * dt)
    stats = t.alloc(batch * seq * 2 * F32)              # layernorm stats
    done(attn)
    done(stats)
    f1 = t.alloc(batch * seq * ffn * dt)
    f2 = t.alloc(batch * seq * hid * dt)
    done(f1)
    x2 = t.alloc(batch * seq * hid * dt)
    done(f2)
    if keep is None:
        t.free(x)
    done(x1)
    if keep is not None:
        keep.append(x)
    t.last = x2
    return x2


def transformer_weights(t, layers, hid, ffn, vocab):
    w = [t.alloc(vocab * hid * F32), t.alloc(512 * hid * F32)]
    for _ in range(layers):
        w += [t.alloc(hid * 3 * hid * F32), t.alloc(3 * hid * F32),
              t.alloc(hid * hid * F32), t.alloc(hid * F32),
              t.alloc(hid * ffn * F32), t.alloc(ffn * F32),
              t.alloc(ffn * hid * F32), t.alloc(hid * F32),
              t.alloc(4 * hid * F32)]
    return w


def transformer_infer(rng, small):
    t = Trace("transformer_infer", 0)
    layers, hid, heads, ffn, vocab = (6, 512, 8, 2048, 30522)
    if small:
        layers, hid, heads, ffn, vocab = (2, 128, 4, 512, 4000)
    weights = transformer_weights(t, layers, hid, ffn, vocab)
    t.sync()
    for _ in range(8 if small else 40):
        batch = rng.choice([1, 2, 4, 8, 16])
        seq = rng.choice([32, 64, 128, 256, 384, 512] if not small
                         else [16, 32, 64])
        while batch * seq > (4096 if not small else 512):
            batch //= 2
        ids = t.alloc(batch * seq * 8, 1)               # int64 token ids
        mask = t.alloc(batch * seq * F32, 1)
        t.last = t.alloc(batch * seq * hid * F32)       # embeddings
        t.free(ids)
        for _ in range(layers):
            encoder_layer(t, batch, seq, hid, heads, ffn)
        pooled = t.alloc(batch * hid * F32)
        t.free(t.last)
        t.free(mask)
        out = t.alloc(batch * 2 * F32, 1)
        t.free(pooled)
        t.free(out)
        if rng.random() < 0.25:
            t.sync()
    for w in weights:
        t.free(w)
    return t


def training(rng, small):
    t = Trace("training", 0)
    layers, hid, heads, ffn, vocab = (4, 512, 8, 2048, 8000)
    if small:
        layers, hid, heads, ffn, vocab = (2, 128, 4, 512, 2000)
    weights = transformer_weights(t, layers, hid, ffn, vocab)
    sizes = {w: t.live[w] for w in weights}
    adam = [t.alloc(sizes[w]) for w in weights] + \
        [t.alloc(sizes[w]) for w in weights]
    t.sync()
    batch = 8 if not small else 2
    for _ in range(10 if not small else 4):
        seq = rng.choice([64, 128, 192, 256] if not small else [16, 32])
        ids = t.alloc(batch * seq * 8, 1)
        labels = t.alloc(batch * seq * 8, 1)
        t.last = t.alloc(batch * seq * hid * F32)
        saved = []
        per_layer = []
        for _ in range(layers):
            keep = []
            encoder_layer(t, batch, seq, hid, heads, ffn, keep)
            per_layer.append(keep)
        logits = t.alloc(batch * seq * vocab * F32)
        loss = t.alloc(F32)
        # backward: gradient of logits, then layers in reverse
        g = t.alloc(batch * seq * vocab * F32)
        t.free(logits)
        gx = t.alloc(batch * seq * hid * F32)
        t.free(g)
        t.free(t.last)
        wgrads = [t.alloc(sizes[w]) for w in weights[:2]]
        for keep in reversed(per_layer):
            for a in reversed(keep):
                tmp = t.alloc(t.live[a])                # grad wrt a
                t.free(a)
                t.free(tmp)
            wgrads += [t.alloc(sizes[w]) for w in weights[2:11]]
            ngx = t.alloc(batch * seq * hid * F32)
            t.free(gx)
            gx = ngx
        t.free(gx)
        t.free(loss)
        t.free(ids)
        t.free(labels)
        # optimizer step reads grads, then they go
        for wg in wgrads:
            t.free(wg)
        del saved
        t.sync()
    for i in adam + weights:
        t.free(i)
    return t


def kv_cache(rng, small):
    t = Trace("kv_cache", 0)
    layers, hid, vocab = (8, 512, 32000) if not small else (2, 128, 4000)
    per_tok = 2 * hid * F16                              # K and V, one layer
    block = 64                                           # tokens per growth
    w = transformer_weights(t, layers, hid, 4 * hid, vocab)
    t.sync()
    active = []
    finished = 0
    target = 48 if not small else 8
    maxconc = 12 if not small else 4
    seq_id = 0
    while finished < target:
        while len(active) < maxconc and seq_id < target:
            prompt = rng.randint(16, 768 if not small else 96)
            gen = rng.randint(16, 512 if not small else 64)
            cap = (prompt + block - 1) // block * block
            caches = [t.alloc(cap * per_tok) for _ in range(layers)]
            # prefill scratch
            s = t.alloc(prompt * hid * F32)
            t.free(s)
            active.append({"len": prompt, "left": gen, "cap": cap,
                           "caches": caches})
            seq_id += 1
        n = len(active)
        x = t.alloc(n * hid * F32)
        for li in range(layers):
            for sq in active:
                if sq["len"] + 1 > sq["cap"]:
                    sq["cap"] += block
                    new = t.alloc(sq["cap"] * per_tok)   # grow: copy, free
                    t.free(sq["caches"][li])
                    sq["caches"][li] = new
            a = t.alloc(n * hid * F32)
            t.free(a)
        logits = t.alloc(n * vocab * F32)
        t.free(x)
        t.free(logits)
        for sq in active:
            sq["len"] += 1
            sq["left"] -= 1
        done = [s for s in active if s["left"] <= 0]
        for sq in done:
            for c in sq["caches"]:
                t.free(c)
            active.remove(sq)
            finished += 1
    for i in w:
        t.free(i)
    return t


def adversarial(rng, small):
    """Robson-style: every phase leaves holes that no later request fits.

    Phase k allocates n (block, pin) pairs in sequence, so that any
    allocator working in fresh space lays them out interleaved, then frees
    the blocks. The next phase asks for blocks twice as large and for pins
    larger than the holes just left, so neither fits any earlier hole, and
    frees every other pin of two phases ago: live bytes stay bounded while
    the holes never merge into anything usable. Without moving memory an
    allocator needs the sum of all phases; with compaction, peak live.
    """
    t = Trace("adversarial", 0)
    kib = 1024
    n = 48 if not small else 12
    size = 64 * kib if not small else 16 * kib
    phases = 7 if not small else 4
    pins = []
    for phase in range(phases):
        pin = size // 2 + 512 * rng.randint(1, 4)
        blocks, mine = [], []
        for _ in range(n):
            blocks.append(t.alloc(size + 512 * rng.randint(0, 3)))
            mine.append(t.alloc(pin))
        for b in blocks:
            t.free(b)
        if len(pins) >= 2:
            old = pins[-2]
            for i in range(0, len(old), 2):
                t.free(old[i])
            pins[-2] = old[1::2]
        pins.append(mine)
        size *= 2
    return t


GENERATORS = [("cnn_infer", cnn_infer), ("transformer_infer",
              transformer_infer), ("training", training),
              ("kv_cache", kv_cache), ("adversarial", adversarial)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--scale", choices=["small", "full"], default="full")
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    for k, (name, gen) in enumerate(GENERATORS):
        rng = random.Random(args.seed * 1000 + k)
        t = gen(rng, args.scale == "small")
        t.lines[0] = "# trace %s seed %d scale %s" % (name, args.seed,
                                                      args.scale)
        path = os.path.join(args.outdir, name + ".trace")
        with open(path, "w") as f:
            f.write(t.finish())
    return 0


if __name__ == "__main__":
    sys.exit(main())
