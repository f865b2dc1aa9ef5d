// SPDX-License-Identifier: MIT
//
// ONNX Runtime (onnxruntime-node, CPU execution provider) timing server
// for `make bench-models`: one JSON request per line on stdin, one JSON
// reply per line on stdout, so that node and each session start once per
// benchmark and the runs of ORT interleave with npu-run's.
//
// Request:  {"model": PATH, "threads": T, "warmup": W, "loops": N,
//            "inputs": [{"name", "dtype", "shape", "file"}]}
//   each input file holds the raw little-endian bytes of the tensor.
//   The session (intra-op threads T, inter-op 1, all graph optimisations)
//   is created on the first request for (PATH, T) and kept.
// Reply:    {"ok": true, "times_ms": [N wall-clock times of session.run()],
//            "create_ms": session creation time or null when cached}
//           or {"ok": false, "error": MESSAGE}
// Throughput (`make bench-serve`): with "concurrency": C and "seconds": S
// instead of "loops", C chains of session.run() on the one session run at
// once for S seconds (each chain awaits its run before the next, as C
// server threads would); the reply is {"ok": true, "requests": R,
// "seconds": elapsed, "create_ms": ...}.
//
// Generation (`make bench-models`' decoders): with "generate": N and
// "prompt": [ids], each of the N loops is one greedy generation of N new
// tokens with the decoder's KV cache (inputs input_ids, attention_mask,
// position_ids, cache_position filled in as npurt_model_generate() does;
// every other input a cache fed by the output of its name with "present"
// for "past_key_values"/"past", empty for a growing cache, zeros for a
// static one); the reply is {"ok": true, "tokens": [last generation's],
// "tokens_per_s": [per generation, the tokens after the first over their
// time], "create_ms": ...}.
//
// Run with NODE_PATH pointing at the node_modules that holds
// onnxruntime-node (the bench target installs it into build/ort).
'use strict';

const fs = require('fs');
const readline = require('readline');
const ort = require('onnxruntime-node');

const ARRAYS = {
  float32: Float32Array, int32: Int32Array, int64: BigInt64Array,
  int8: Int8Array, uint8: Uint8Array, bool: Uint8Array,
};

const sessions = new Map();

function readTensor(inp) {
  const buf = fs.readFileSync(inp.file);
  const Ctor = ARRAYS[inp.dtype];
  if (!Ctor)
    throw new Error('dtype ' + inp.dtype + ' not handled');
  const copy = new ArrayBuffer(buf.length);
  new Uint8Array(copy).set(buf);
  return new ort.Tensor(inp.dtype, new Ctor(copy), inp.shape);
}

function presentName(past) {
  if (past.startsWith('past_key_values'))
    return 'present' + past.slice('past_key_values'.length);
  return 'present' + past.slice('past'.length);
}

function ids(n, f) {
  const a = new BigInt64Array(n);
  for (let i = 0; i < n; i++)
    a[i] = BigInt(f(i));
  return a;
}

// One step's feeds: seq tokens after past positions.
function stepFeeds(sess, meta, toks, past, cache) {
  const s = toks.length, feeds = {};
  for (const name of sess.inputNames) {
    const m = meta[name] || {};
    if (name === 'input_ids')
      feeds[name] = new ort.Tensor('int64', ids(s, (i) => toks[i]), [1, s]);
    else if (name === 'position_ids')
      feeds[name] = new ort.Tensor('int64', ids(s, (i) => past + i), [1, s]);
    else if (name === 'cache_position')
      feeds[name] = new ort.Tensor('int64', ids(s, (i) => past + i), [s]);
    else if (name === 'attention_mask') {
      const n = m.fixed ? m.len : past + s;
      feeds[name] = new ort.Tensor('int64',
        ids(n, (i) => (i < past + s ? 1 : 0)), [1, n]);
    } else
      feeds[name] = cache[name];
  }
  return feeds;
}

function argmaxLast(logits) {
  const v = logits.dims[2], d = logits.data, base = d.length - v;
  let best = 0;
  for (let i = 1; i < v; i++)
    if (d[base + i] > d[base + best])
      best = i;
  return best;
}

async function generate(sess, req) {
  const meta = {}, rates = [];
  let toks = [];
  for (const c of req.cache)   // {name, shape}: the empty or zero cache
    meta[c.name] = c;
  if (req.mask_len)
    meta.attention_mask = { fixed: true, len: req.mask_len };
  for (let g = 0; g < req.warmup + req.loops; g++) {
    const cache = {};
    for (const c of req.cache)
      cache[c.name] = new ort.Tensor('float32', new Float32Array(
        c.shape.reduce((a, b) => a * b, 1)), c.shape);
    let cur = req.prompt.slice(), past = 0, t1 = 0n;
    toks = [];
    while (toks.length < req.generate) {
      const out = await sess.run(stepFeeds(sess, meta, cur, past, cache));
      const next = argmaxLast(out.logits || out[sess.outputNames[0]]);
      toks.push(next);
      if (toks.length === 1)
        t1 = process.hrtime.bigint();
      past += cur.length;
      for (const c of req.cache)
        cache[c.name] = out[presentName(c.name)];
      cur = [next];
    }
    if (g >= req.warmup)
      rates.push((toks.length - 1) * 1e9 /
                 Number(process.hrtime.bigint() - t1));
  }
  return { tokens: toks, tokens_per_s: rates };
}

async function handle(req) {
  const key = req.model + '\0' + req.threads;
  let sess = sessions.get(key);
  let createMs = null;
  if (!sess) {
    const t0 = process.hrtime.bigint();
    sess = await ort.InferenceSession.create(req.model, {
      executionProviders: ['cpu'], intraOpNumThreads: req.threads,
      interOpNumThreads: 1, graphOptimizationLevel: 'all',
    });
    createMs = Number(process.hrtime.bigint() - t0) / 1e6;
    sessions.set(key, sess);
  }
  if (req.generate) {
    const r = await generate(sess, req);
    return { ok: true, tokens: r.tokens, tokens_per_s: r.tokens_per_s,
             create_ms: createMs };
  }
  const feeds = {};
  for (const inp of req.inputs)
    feeds[inp.name] = readTensor(inp);
  for (let i = 0; i < req.warmup; i++)
    await sess.run(feeds);
  if (req.concurrency) {
    const t0 = process.hrtime.bigint();
    const end = t0 + BigInt(Math.round(req.seconds * 1e9));
    let requests = 0;
    const chain = async () => {
      while (process.hrtime.bigint() < end) {
        await sess.run(feeds);
        requests++;
      }
    };
    const chains = [];
    for (let c = 0; c < req.concurrency; c++)
      chains.push(chain());
    await Promise.all(chains);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    return { ok: true, requests: requests, seconds: seconds,
             create_ms: createMs };
  }
  const times = [];
  for (let i = 0; i < req.loops; i++) {
    const t0 = process.hrtime.bigint();
    await sess.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { ok: true, times_ms: times, create_ms: createMs };
}

const rl = readline.createInterface({ input: process.stdin });
let chain = Promise.resolve();
rl.on('line', (line) => {
  chain = chain.then(async () => {
    let reply;
    try {
      reply = await handle(JSON.parse(line));
    } catch (e) {
      reply = { ok: false, error: String(e && e.message ? e.message : e) };
    }
    process.stdout.write(JSON.stringify(reply) + '\n');
  });
});
