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
