#!/usr/bin/env node
// ONNX Runtime's figures on the benchmark programs (a CPU anchor beside
// AOTInductor and ep.module(): tools/exported_program_anchor.py).
//
//   node tools/onnxruntime_anchor.js [--check] DIR NAME...
//
// For each NAME: a session on DIR/NAME.onnx with one intra-op and one inter-op
// thread, every graph optimisation, sequential execution; the inputs from
// DIR/NAME.onnx.json and its raw little-endian float32 files, run once and
// checked against PyTorch's outputs (rtol 1e-3, atol 1e-3, as the anchor
// script's allclose; a failure names the program and the largest difference
// and exits non-zero), then timed: warm-up runs, then the median of at least 5
// runs and about 1 s of wall time, and the median CPU time of this process
// (process.cpuUsage: all its threads, user and system). --check: check only.
// One line a program: NAME.onnx, ort ms (wall), ort cpu (ms).
//
// The programs: tools/exported_program_anchor.py onnx DIR [NAME...].
// ONNX Runtime: npm's onnxruntime-node (1.30.0 measured), which carries the
// CPU library itself. Install it on the host (the lanes have no network for
// npm, and the package need not be built):
//   npm install --prefix DIR --ignore-scripts onnxruntime-node@1.30.0
// and name its node_modules in ORT_NODE_MODULES (default: DIR/node_modules
// when it holds the package, else Node's ordinary require).
//
// The harness's own cost per call, measured with a one-node model (x + 1.0 on
// a 1-element tensor, exported as the programs are; onnxruntime-node 1.30.0,
// 2-core host, load ~3): 0.006 ms wall, 0.006-0.007 ms CPU per run, with node
// 24 in the sid lane and node 20 on the host alike (session.run's promise,
// feeds and fetches included). Beside add_chain's ~0.2 ms (1,000 Adds) that
// is 3%; beside the other programs, nothing.
'use strict';

const fs = require('fs');
const path = require('path');

function loadOrt(dir) {
  const candidates = [];
  if (process.env.ORT_NODE_MODULES) candidates.push(process.env.ORT_NODE_MODULES);
  if (dir) candidates.push(path.join(dir, 'node_modules'));
  for (const modules of candidates) {
    for (const base of [modules, path.join(modules, 'node_modules')]) {
      const pkg = path.join(path.resolve(base), 'onnxruntime-node');
      if (fs.existsSync(path.join(pkg, 'package.json'))) {
        return {ort: require(pkg), version: require(path.join(pkg, 'package.json')).version, where: pkg};
      }
    }
    if (modules === process.env.ORT_NODE_MODULES) {
      throw new Error(`ORT_NODE_MODULES=${modules}: no onnxruntime-node there ` +
                      '(npm install --prefix DIR --ignore-scripts onnxruntime-node@1.30.0)');
    }
  }
  const where = require.resolve('onnxruntime-node');
  let version = '?';
  try {
    version = require('onnxruntime-node/package.json').version;
  } catch (e) { /* exports may hide package.json */ }
  return {ort: require('onnxruntime-node'), version, where};
}

function readF32(file, dims) {
  const buf = fs.readFileSync(file);
  const count = dims.reduce((a, b) => a * b, 1);
  if (buf.length !== count * 4) {
    throw new Error(`${file}: ${buf.length} bytes, not ${count} float32s for [${dims}]`);
  }
  // A copy, aligned; the files are little-endian, as is every machine this runs on.
  const out = new Float32Array(count);
  new Uint8Array(out.buffer).set(buf);
  return out;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// Median wall and CPU milliseconds of fn() after warm-up runs: at least 5 runs
// and minSeconds of wall time.
async function medianMs(fn, warmup, minSeconds) {
  for (let i = 0; i < warmup; i++) await fn();
  const wall = [], cpu = [];
  const start = process.hrtime.bigint();
  while (wall.length < 5 || Number(process.hrtime.bigint() - start) < minSeconds * 1e9) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await fn();
    const t1 = process.hrtime.bigint();
    const c = process.cpuUsage(c0);
    wall.push(Number(t1 - t0) / 1e6);
    cpu.push((c.user + c.system) / 1e3);
  }
  return [median(wall), median(cpu)];
}

// The largest absolute difference from PyTorch's outputs; throws when one is
// not close.
function check(name, meta, results) {
  let worst = 0;
  for (const want of meta.outputs) {
    const got = results[want.name];
    if (!got) throw new Error(`${name}: ONNX Runtime gave no output ${want.name}`);
    if (got.dims.length !== want.dims.length || got.dims.some((d, i) => d !== want.dims[i])) {
      throw new Error(`${name}: output ${want.name} is [${got.dims}], PyTorch's [${want.dims}]`);
    }
    const expected = readF32(path.join(meta.dir, want.file), want.dims);
    const data = got.data;
    let maxDiff = 0, bad = 0;
    for (let i = 0; i < expected.length; i++) {
      const diff = Math.abs(data[i] - expected[i]);
      // allclose: |a - b| <= atol + rtol * |b|; NaN is never close.
      if (!(diff <= 1e-3 + 1e-3 * Math.abs(expected[i]))) bad++;
      if (!(diff <= maxDiff)) maxDiff = diff;
    }
    if (bad) {
      throw new Error(`${name}: ONNX Runtime's output ${want.name} differs from PyTorch's by ${maxDiff} ` +
                      `(${bad} of ${expected.length} elements beyond rtol 1e-3, atol 1e-3)`);
    }
    worst = Math.max(worst, maxDiff);
  }
  return worst;
}

async function main() {
  const args = process.argv.slice(2);
  const checkOnly = args[0] === '--check';
  if (checkOnly) args.shift();
  if (args.length < 2) {
    process.stderr.write('usage: node tools/onnxruntime_anchor.js [--check] DIR NAME... ' +
                         '(ORT_NODE_MODULES: a node_modules with onnxruntime-node)\n');
    process.exit(2);
  }
  const [dir, ...names] = args;
  const {ort, version} = loadOrt(dir);
  const options = {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  };
  if (!checkOnly) {
    console.log(`onnxruntime-node ${version} (node ${process.version}), 1 intra-op thread, ` +
                'sequential, all graph optimisations; medians');
    console.log('%s %s %s', 'program'.padEnd(30), 'ort ms'.padStart(10), 'ort cpu'.padStart(10));
  }
  for (const name of names) {
    const model = path.join(dir, name + '.onnx');
    const meta = JSON.parse(fs.readFileSync(model + '.json', 'utf8'));
    meta.dir = dir;
    const session = await ort.InferenceSession.create(model, options);
    const feeds = {};
    for (const input of meta.inputs) {
      if (!session.inputNames.includes(input.name)) {
        throw new Error(`${name}: the model has no input ${input.name} (it has ${session.inputNames})`);
      }
      feeds[input.name] = new ort.Tensor('float32', readF32(path.join(dir, input.file), input.dims), input.dims);
    }
    const missing = session.inputNames.filter((n) => !(n in feeds));
    if (missing.length) throw new Error(`${name}: no data for the model's input(s) ${missing}`);
    const worst = check(name, meta, await session.run(feeds));
    if (checkOnly) {
      console.log(`check ${name} ort: ok, max abs difference ${worst.toExponential(2)} ` +
                  `(${meta.outputs.length} output(s), rtol 1e-3, atol 1e-3)`);
    } else {
      const [wall, cpu] = await medianMs(() => session.run(feeds), 3, 1.0);
      console.log('%s %s %s', (name + '.onnx').padEnd(30), wall.toFixed(3).padStart(10),
                  cpu.toFixed(3).padStart(10));
    }
    await session.release();
  }
}

main().catch((e) => {
  process.stderr.write(`onnxruntime_anchor.js: ${e.message || e}\n`);
  process.exit(1);
});
