// Runs a Python script inside Pyodide 314 (the Python Workers' interpreter) under Node 22.
//
//   node --experimental-wasm-jspi tests/pyodide/runner.mjs <script.py> [args...]
//
// The repository is mounted at /src (the working directory) and the wheels that
// scripts/pyodide_wheels.py fetched at /wheels; micropip installs them from there, offline,
// without resolving (the manifest already holds the closure at uv.lock's versions). The
// script's sync `main(argv)` runs through callPromising, so that Python code may block on
// JavaScript promises (JSPI stack switching), which pytest's event loop runner needs.
//
// Bindings made here, following the documented JavaScript shapes, reach Python as the
// module `mallory_js` (pyodide.registerJsModule): tests/pyodide/bindings.mjs.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";
import { makeBindings, workerdModules } from "./bindings.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const WHEELS = path.join(ROOT, ".pyodide-wheels");

const [script, ...args] = process.argv.slice(2);
if (!script) {
  console.error("usage: runner.mjs <script.py> [args...]");
  process.exit(2);
}
const manifest = JSON.parse(fs.readFileSync(path.join(WHEELS, "manifest.json"), "utf8"));

const started = performance.now();
const py = await loadPyodide({ indexURL: path.join(ROOT, "node_modules", "pyodide") + "/" });
const booted = performance.now();
for (const [dir, where] of [[ROOT, "/src"], [WHEELS, "/wheels"]]) {
  py.FS.mkdirTree(where);
  py.FS.mount(py.FS.filesystems.NODEFS, { root: dir }, where);
}
await py.loadPackage(path.join(WHEELS, manifest.wheels.micropip), { messageCallback: () => {} });
const wheels = Object.entries(manifest.wheels)
  .filter(([name]) => name !== "micropip")
  .map(([, file]) => `emfs:/wheels/${file}`);
py.globals.set("_wheels", py.toPy(wheels));
await py.runPythonAsync(`
import micropip
await micropip.install(_wheels, deps=False)
del _wheels
`);
const bindings = await makeBindings(ROOT);
py.registerJsModule("mallory_js", bindings.module);
for (const [name, module] of Object.entries(workerdModules({}, () => {}))) {
  py.registerJsModule(name, module);
}
const installed = performance.now();

py.runPython(`
import os, sys
sys.dont_write_bytecode = True
os.chdir("/src")
sys.path.insert(0, "/src")
`);
py.globals.set("_runner_timings", py.toPy({
  boot_s: (booted - started) / 1000, install_s: (installed - booted) / 1000,
}));
let code = 1;
try {
  const namespace = py.globals.get("dict")();
  py.runPython(fs.readFileSync(path.resolve(script), "utf8"), {
    globals: namespace, filename: path.resolve(script),
  });
  const main = namespace.get("main");
  code = await main.callPromising(py.toPy(args), py.globals.get("_runner_timings"));
} finally {
  await bindings.close();
}
process.exit(Number(code) || 0);
