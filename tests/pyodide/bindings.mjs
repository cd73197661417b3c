// JavaScript bindings for the Pyodide suite, shaped like the Workers' own, so that the
// Worker's FFI code meets what it meets at the edge: JS objects, promises, JS null, typed
// arrays, no Python dicts. Each checks its arguments the way the platform documents, so a
// Python dict that crossed as a PyProxy, or undefined where null belongs, fails loudly.
//
//   d1()        real D1 (Miniflare's, workerd's SQLite), started on first use
//   ratelimit   env.X.limit({key}) -> {success}             (Workers Rate Limiting)
//   ai          env.AI.run(model, inputs)                    (bge-*-en-v1.5, bge-reranker-base)
//   vectorize   env.VECTORS.upsert/deleteByIds/query         (Vectorize V2)
//   assets      env.ASSETS.fetch(request) -> Response        (worker/static)
import fs from "node:fs";
import path from "node:path";

const isPlainObject = (v) => v !== null && typeof v === "object"
  && Object.getPrototypeOf(v) === Object.prototype;

function need(condition, message) {
  if (!condition) throw new TypeError(message);
}

// Workers Rate Limiting: `limit({key})` resolves to `{success}`; `limit` calls per key and
// period are counted, `limit` at most per key (developers.cloudflare.com/workers/runtime-apis/bindings/rate-limit).
export function makeRateLimiter(limit) {
  const counts = new Map();
  return {
    calls: [],
    async limit(options) {
      need(isPlainObject(options), `limit() takes an object, not ${Object.prototype.toString.call(options)}`);
      need(typeof options.key === "string" && options.key, "limit() needs a string key");
      this.calls.push(options.key);
      const n = (counts.get(options.key) ?? 0) + 1;
      counts.set(options.key, n);
      return { success: n <= limit };
    },
  };
}

// A deterministic stand-in embedding: hashed word counts, so texts that share words point
// the same way. The envelope is the documented one: {shape: [n, d], data, pooling}.
function embed(text, dims) {
  const v = new Array(dims).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (const c of word) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
    v[h % dims] += 1;
  }
  return v;
}

const EMBEDDING_DIMS = { "@cf/baai/bge-small-en-v1.5": 384, "@cf/baai/bge-base-en-v1.5": 768 };

export function makeAI() {
  return {
    calls: [],
    async run(model, inputs) {
      need(isPlainObject(inputs), `AI.run(${model}) takes an inputs object`);
      this.calls.push(model);
      if (model in EMBEDDING_DIMS) {
        const texts = typeof inputs.text === "string" ? [inputs.text] : inputs.text;
        need(Array.isArray(texts) && texts.length >= 1 && texts.length <= 100,
          "text must be a string or an array of 1 to 100 strings");
        need(texts.every((t) => typeof t === "string" && t.length > 0), "every text must be a non-empty string");
        need(inputs.pooling === undefined || ["mean", "cls"].includes(inputs.pooling), "pooling is mean or cls");
        const dims = EMBEDDING_DIMS[model];
        return { shape: [texts.length, dims], data: texts.map((t) => embed(t, dims)),
                 pooling: inputs.pooling ?? "mean" };
      }
      if (model === "@cf/baai/bge-reranker-base") {
        need(typeof inputs.query === "string" && inputs.query.length > 0, "query must be a non-empty string");
        need(Array.isArray(inputs.contexts), "contexts must be an array");
        const q = new Set(inputs.query.toLowerCase().match(/[a-z0-9]+/g) ?? []);
        const scored = inputs.contexts.map((c, id) => {
          need(isPlainObject(c) && typeof c.text === "string" && c.text.length > 0, "each context is {text}");
          const words = c.text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
          return { id, score: words.filter((w) => q.has(w)).length / (1 + words.length) };
        });
        scored.sort((a, b) => b.score - a.score);
        return { response: scored.slice(0, inputs.top_k ?? scored.length) };
      }
      throw new Error(`AiError: 5007: No such model ${model} or task`);
    },
  };
}

// Workers AI when it cannot serve: every run() rejects with an Error, its code in the text,
// as the binding's errors read ("AiError: 3040: Capacity temporarily exceeded, ...").
export function makeFailingAI(message) {
  return {
    calls: [],
    async run(model, inputs) {
      need(isPlainObject(inputs), `AI.run(${model}) takes an inputs object`);
      this.calls.push(model);
      throw new Error(message);
    },
  };
}

// Vectorize V2: ids of at most 64 bytes, values a number array or Float32Array of the
// index's dimension, metadata an object; topK at most 100 (20 with metadata or values);
// filters with $eq/$ne/$in/$nin/$lt/$lte/$gt/$gte or a bare value for $eq.
export function makeVectorize(dims) {
  const vectors = new Map();
  let mutation = 0;
  const matches = (meta, filter) => Object.entries(filter ?? {}).every(([field, cond]) => {
    const v = meta?.[field];
    const ops = isPlainObject(cond) ? cond : { $eq: cond };
    return Object.entries(ops).every(([op, x]) => ({
      $eq: () => v === x, $ne: () => v !== x, $in: () => x.includes(v), $nin: () => !x.includes(v),
      $lt: () => v < x, $lte: () => v <= x, $gt: () => v > x, $gte: () => v >= x,
    })[op]?.() ?? (() => { throw new Error(`VECTOR_QUERY_ERROR: unknown operator ${op}`); })());
  });
  const checkValues = (values, what) => {
    const list = values instanceof Float32Array || values instanceof Float64Array ? Array.from(values) : values;
    need(Array.isArray(list) && list.length === dims && list.every((x) => typeof x === "number"),
      `${what}: expected ${dims} numbers`);
    return list;
  };
  return {
    vectors,
    async upsert(items) {
      need(Array.isArray(items) && items.length <= 1000, "upsert takes an array of at most 1000 vectors");
      for (const item of items) {
        need(isPlainObject(item) && typeof item.id === "string", "each vector is {id, values, metadata?}");
        need(new TextEncoder().encode(item.id).length <= 64, `vector id too long: ${item.id}`);
        need(item.metadata === undefined || isPlainObject(item.metadata), "metadata must be an object");
        vectors.set(item.id, { values: checkValues(item.values, item.id), metadata: item.metadata ?? {} });
      }
      return { mutationId: String(++mutation) };
    },
    async deleteByIds(ids) {
      need(Array.isArray(ids) && ids.every((i) => typeof i === "string"), "deleteByIds takes an array of ids");
      for (const id of ids) vectors.delete(id);
      return { mutationId: String(++mutation) };
    },
    async query(vector, options) {
      const q = checkValues(vector, "query vector");
      need(isPlainObject(options), "query options must be an object");
      const topK = options.topK ?? 5;
      const withMeta = options.returnMetadata === "all" || options.returnMetadata === true;
      need(Number.isInteger(topK) && topK >= 1 && topK <= (withMeta || options.returnValues ? 20 : 100),
        `VECTOR_QUERY_ERROR: topK ${topK} out of range`);
      const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
      const qn = norm(q);
      const found = [...vectors.entries()]
        .filter(([, v]) => matches(v.metadata, options.filter))
        .map(([id, v]) => ({ id, score: v.values.reduce((s, x, i) => s + x * q[i], 0) / (qn * norm(v.values)),
                             ...(withMeta ? { metadata: v.metadata } : {}) }))
        .sort((a, b) => b.score - a.score).slice(0, topK);
      return { count: found.length, matches: found };
    },
  };
}

// Workers static assets: `/` and `/x/` serve index.html, `/login` serves login.html
// (html_handling "auto-trailing-slash"), the query string is ignored, anything else 404s.
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8" };
export function makeAssets(dir) {
  return {
    requests: [],
    async fetch(request) {
      need(request instanceof Request || typeof request === "string", "ASSETS.fetch takes a Request or URL");
      const url = new URL(typeof request === "string" ? request : request.url);
      this.requests.push(url.pathname + url.search);
      let rel = decodeURIComponent(url.pathname);
      if (rel.endsWith("/")) rel += "index.html";
      else if (!path.extname(rel)) rel += ".html";
      const file = path.join(dir, path.normalize(rel));
      if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
        return new Response("Not Found", { status: 404 });
      }
      return new Response(fs.readFileSync(file), {
        status: 200, headers: { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" },
      });
    },
  };
}

// workerd's internal modules that the Workers SDK (`workers`, `asgi`) imports, standing in
// so that worker/entry.py imports and its Default class can be driven here.
export function workerdModules(env, waitUntil) {
  return {
    _cloudflare_compat_flags: { python_workflows_implicit_dependencies: false },
    _pyodide_entrypoint_helper: {
      cloudflareWorkersModule: { env, waitUntil },
      cloudflareSocketsModule: {},
      doAnImport: async (name) => await import(name),
      patchWaitUntil: () => {},
      patch_env_helper: (patch) => patch,
    },
  };
}

export async function makeBindings(root) {
  let miniflare = null;
  const module = {
    async d1() {
      if (!miniflare) {
        const { Miniflare } = await import("miniflare");
        miniflare = new Miniflare({
          modules: true, script: "export default { fetch() { return new Response(''); } }",
          compatibilityDate: "2025-11-02", d1Databases: { DB: "mallory-pyodide" },
        });
      }
      return await miniflare.getD1Database("DB");
    },
    makeRateLimiter, makeAI, makeFailingAI, makeVectorize,
    makeAssets: () => makeAssets(path.join(root, "worker", "static")),
  };
  return { module, close: async () => { if (miniflare) await miniflare.dispose(); } };
}
