// Starts Miniflare with one D1 database and a tiny JavaScript Worker that exposes it over
// HTTP, so Python tests can run the project's SQL against real D1 (workerd's SQLite).
// Protocol (JSON over POST, loopback only):
//   /query  {sql, params, mode: "all"|"run"|"first"|"raw"}  -> D1 result
//   /batch  {statements: [{sql, params}]}                   -> [D1 result, ...]
//   /exec   {sql}                                           -> D1 exec result
// Errors come back as HTTP 500 {error: {message, cause}} with D1's own message text.
// Prints one line "READY <url>" on stdout when it is listening; exits when stdin closes.
import { Miniflare } from "miniflare";

const script = `
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    try {
      const body = await request.json();
      if (url.pathname === "/query") {
        const stmt = env.DB.prepare(body.sql).bind(...(body.params ?? []));
        let result;
        if (body.mode === "first") result = { results: [await stmt.first()].filter((r) => r !== null), meta: {} };
        else if (body.mode === "run") result = await stmt.run();
        else if (body.mode === "raw") result = { results: await stmt.raw(), meta: {} };
        else result = await stmt.all();
        return Response.json(result);
      }
      if (url.pathname === "/batch") {
        const stmts = body.statements.map((s) => env.DB.prepare(s.sql).bind(...(s.params ?? [])));
        return Response.json(await env.DB.batch(stmts));
      }
      if (url.pathname === "/exec") {
        return Response.json(await env.DB.exec(body.sql));
      }
      return Response.json({ error: { message: "unknown path " + url.pathname } }, { status: 404 });
    } catch (err) {
      return Response.json(
        { error: { message: String(err && err.message || err), cause: String(err && err.cause && err.cause.message || "") } },
        { status: 500 },
      );
    }
  },
};
`;

const mf = new Miniflare({
  modules: true,
  script,
  compatibilityDate: "2025-11-02",
  d1Databases: { DB: "mallory-contract" },
  host: "127.0.0.1",
  port: 0,
});

const url = await mf.ready;
process.stdout.write(`READY ${url}\n`);

const shutdown = async () => {
  try { await mf.dispose(); } finally { process.exit(0); }
};
process.stdin.on("end", shutdown);
process.stdin.on("close", shutdown);
process.stdin.resume();
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
