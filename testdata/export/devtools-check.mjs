// devtools-check.mjs FILE - open a Chrome trace-event JSON file the way Chrome's own viewer
// does: start a headless Chromium ($CHROMIUM, default "chromium"), talk to it over
// --remote-debugging-pipe, load DevTools' trace engine
// (devtools://devtools/bundled/models/trace/trace.js, the parser behind the Performance
// panel's "Load profile") and parse the file's traceEvents with it.
// Prints one line per thread: its name, its slices, and how many of them are at the top
// level; a thread whose slices the engine nests inside one another is a failure, since
// wcanalyze's slices of one thread never overlap.  Exit 0 when every thread is flat, 1 when
// not or when the engine fails on the file, 77 when Chromium or its trace engine cannot be
// reached.  Node.js 16 or later (no WebSocket needed: the pipe is fds 3 and 4).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const file = process.argv[2];
const text = fs.readFileSync(file, 'utf8');
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wc-devtools-'));
const browser = spawn(process.env.CHROMIUM || 'chromium',
  ['--headless=new', '--no-sandbox', '--disable-gpu', '--remote-debugging-pipe',
   `--user-data-dir=${profile}`, 'about:blank'],
  { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });

let exited = false;
let closing = false; // finish() was called
let expect_exit = false;
browser.on('exit', () => { exited = true; });
async function finish(code, line) {
  if (closing) return;
  closing = true;
  expect_exit = true;
  if (line) console.log(line);
  if (!exited) {
    const gone = new Promise((resolve) => browser.on('exit', resolve));
    browser.kill();
    await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 5000))]);
  }
  try {
    fs.rmSync(profile, { recursive: true, force: true });
  } catch (e) {
    // a Chromium child still writing: the directory is in $TMPDIR, left for its cleaner
  }
  process.exit(code);
}
setTimeout(() => finish(77, 'SKIP: Chromium did not answer within 60 s'), 60000).unref();
try {
  await new Promise((resolve, reject) => {
    browser.once('spawn', resolve);
    browser.once('error', reject);
  });
} catch (e) {
  await finish(77, `SKIP: cannot start Chromium: ${e.message}`);
}
for (const fd of [3, 4])
  browser.stdio[fd].on('error', (e) => finish(77, `SKIP: Chromium's pipe: ${e.message}`));
browser.on('exit', () => {
  if (!expect_exit) finish(77, 'SKIP: Chromium exited');
});

// the protocol: one JSON message per NUL-terminated chunk each way
let next = 0;
let input = '';
const pending = new Map();
browser.stdio[4].on('data', (chunk) => {
  input += chunk.toString();
  for (let end; (end = input.indexOf('\0')) >= 0; input = input.slice(end + 1)) {
    const m = JSON.parse(input.slice(0, end));
    if (m.id && pending.has(m.id)) {
      pending.get(m.id)(m);
      pending.delete(m.id);
    }
  }
});
const send = (method, params = {}, sessionId) => new Promise((resolve) => {
  const id = ++next;
  pending.set(id, resolve);
  browser.stdio[3].write(JSON.stringify({ id, method, params, sessionId }) + '\0');
});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const target = await send('Target.createTarget', { url: 'about:blank' });
if (target.error) await finish(77, `SKIP: Chromium: ${target.error.message}`);
const attached = await send('Target.attachToTarget',
  { targetId: target.result.targetId, flatten: true });
if (attached.error) await finish(77, `SKIP: Chromium: ${attached.error.message}`);
const { sessionId } = attached.result;
await send('Page.navigate', { url: 'devtools://devtools/bundled/trace_app.html' }, sessionId);
const expression = `(async () => {
  let T;
  try { T = await import("./models/trace/trace.js"); } catch (e) { return {skip: String(e)}; }
  if (!T.TraceModel || !T.TraceModel.Model) return {skip: "no TraceModel.Model"};
  const doc = JSON.parse(${JSON.stringify(text)});
  const model = T.TraceModel.Model.createWithAllHandlers();
  await model.parse(doc.traceEvents, {metadata: {}, isFreshRecording: false});
  const parsed = model.parsedTrace(0);
  const data = parsed.data || parsed;
  if (!data.Renderer) return {skip: "no Renderer handler data"};
  const threads = [];
  for (const p of data.Renderer.processes.values())
    for (const t of p.threads.values())
      threads.push({name: t.name, entries: t.entries.length,
                    roots: t.tree ? t.tree.roots.size : -1});
  return {threads};
})()`;
let r;
for (let tries = 0; tries < 20; tries++) { // until the page has loaded
  await sleep(500);
  r = await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true },
    sessionId);
  if (r.result && !r.result.exceptionDetails && !(r.result.result.value || {}).skip) break;
}
if (!r.result) await finish(77, `SKIP: Chromium: ${JSON.stringify(r.error)}`);
if (r.result.exceptionDetails) {
  const d = r.result.exceptionDetails;
  const why = (d.exception || {}).description || d.text;
  await finish(1, `FAIL: DevTools' trace engine threw: ${why}`);
}
const v = r.result.result.value;
if (v.skip) await finish(77, `SKIP: DevTools' trace engine is not usable here: ${v.skip}`);
let bad = v.threads.length === 0;
for (const t of v.threads) {
  console.log(`${t.name}: ${t.entries} slices, ${t.roots} at the top level`);
  if (t.roots !== t.entries) bad = true;
}
await finish(bad ? 1 : 0);
