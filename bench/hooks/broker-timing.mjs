// Loaded into the bench's broker with `node --import` (nothing in the broker changes): a line when an HTTP request's
// headers are parsed (accepted) and one when its response's last byte is handed to the kernel (answered), written
// to fd 3, which the bench reads. Times are process.hrtime (CLOCK_MONOTONIC) nanoseconds, the
// clock the bench's process runner reads too. Only with BENCH_BROKER_TIMING_FD set; the bench drains the pipe.
import diagnostics from "node:diagnostics_channel";
import { Socket } from "node:net";

const fd = Number(process.env.BENCH_BROKER_TIMING_FD);
if (Number.isInteger(fd) && fd > 2) {
  // The bench's pipe is a socket pair (writeSync on it fails with EINVAL): written through a socket, in order.
  const out = new Socket({ fd, readable: false, writable: true });
  out.unref();
  const started = new WeakMap();
  let next = 0;
  diagnostics.subscribe("http.server.request.start", ({ request }) => {
    const start = process.hrtime.bigint();
    const id = ++next;
    started.set(request, { id, start });
    // A line at the start too: a request still waiting (a question open) has no end yet, or never (closed).
    const path = (request.url ?? "").split("?")[0];
    out.write(`${JSON.stringify({ phase: "start", id, method: request.method, path, startNs: `${start}` })}\n`);
  });
  diagnostics.subscribe("http.server.response.finish", ({ request, response }) => {
    const end = process.hrtime.bigint();
    const entry = started.get(request);
    if (entry === undefined) return;
    const path = (request.url ?? "").split("?")[0];
    out.write(
      `${JSON.stringify({ phase: "end", id: entry.id, method: request.method, path, status: response.statusCode, startNs: `${entry.start}`, endNs: `${end}` })}\n`,
    );
  });
}
