"""The process runner of bench/hooks/cost.mjs: starts one child at a time and measures it as the kernel accounts it.

Node cannot wait4(2), so it cannot read a finished child's own CPU time with better than /proc's 10 ms ticks; this
runner can (microseconds, the child's whole life: every thread, start to teardown). Times are CLOCK_MONOTONIC
nanoseconds, the clock Node's process.hrtime() reads, so they compare with the broker's own timestamps.

One JSON request a line on stdin, one JSON answer a line on stdout:
  {"op": "run", "argv": [...], "env": {...}, "cwd": "...", "stdin": "...", "timeoutMs": N}
      spawns, waits for the exit: {"spawnNs", "exitNs", "userUs", "sysUs", "maxRssKb", "code", "signal",
      "stdout", "stderr"}
  {"op": "start", ...the same fields}: spawns and answers at once: {"pid", "spawnNs"}
  {"op": "stop", "timeoutMs": N}: the started child's CPU so far (every thread, /proc schedstat) read now, then
      SIGTERM (SIGKILL after timeoutMs) and its exit: {"sampleNs", "cpuSoFarUs", ...the fields of run}
"""

import json
import os
import signal
import sys
import tempfile
import time

child = None  # (pid, spawnNs, stdoutFile, stderrFile) of the started child


def spawn(request):
    read_end, write_end = os.pipe()
    data = request.get("stdin", "").encode()
    # A hook's input is a few hundred bytes: it fits the pipe, so the child finds it all there, as from a file.
    if len(data) > 60000:
        raise ValueError("stdin larger than a pipe buffer")
    os.write(write_end, data)
    os.close(write_end)
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    actions = [
        (os.POSIX_SPAWN_DUP2, read_end, 0),
        (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
        (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
    ]
    env = request.get("env") or dict(os.environ)
    cwd = request.get("cwd")
    previous = os.getcwd()
    if cwd:
        os.chdir(cwd)
    try:
        spawn_ns = time.monotonic_ns()
        pid = os.posix_spawnp(request["argv"][0], request["argv"], env, file_actions=actions)
    finally:
        if cwd:
            os.chdir(previous)
        os.close(read_end)
    return pid, spawn_ns, out, err


def reap(pid, timeout_ms, term_first=False):
    """Waits for the child (SIGTERM first when asked), SIGKILL at the deadline; its exit time and rusage."""
    if term_first:
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        waited, status, usage = os.wait4(pid, os.WNOHANG)
        if waited == pid:
            return time.monotonic_ns(), status, usage
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            waited, status, usage = os.wait4(pid, 0)
            return time.monotonic_ns(), status, usage
        # Blocking wait4 with a deadline: a SIGALRM interrupts it (PEP 475 retries unless the handler raises).
        signal.setitimer(signal.ITIMER_REAL, max(0.001, deadline - time.monotonic()))
        try:
            waited, status, usage = os.wait4(pid, 0)
            return time.monotonic_ns(), status, usage
        except TimeoutError:
            continue
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)


def on_alarm(_signum, _frame):
    raise TimeoutError()


def cpu_so_far_us(pid):
    """CPU time of every live thread of the process, in microseconds (schedstat: nanoseconds on the CPU)."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                pass
    except FileNotFoundError:
        return None
    return total / 1000


def result(exit_ns, status, usage, out, err):
    out.seek(0)
    err.seek(0)
    answer = {
        "exitNs": exit_ns,
        "userUs": round(usage.ru_utime * 1e6),
        "sysUs": round(usage.ru_stime * 1e6),
        "maxRssKb": usage.ru_maxrss,
        "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "stdout": out.read().decode("utf-8", "replace")[-4000:],
        "stderr": err.read().decode("utf-8", "replace")[-4000:],
    }
    out.close()
    err.close()
    return answer


def handle(request):
    global child
    op = request["op"]
    timeout_ms = request.get("timeoutMs", 60000)
    if op == "run":
        pid, spawn_ns, out, err = spawn(request)
        exit_ns, status, usage = reap(pid, timeout_ms)
        return {"spawnNs": spawn_ns, **result(exit_ns, status, usage, out, err)}
    if op == "start":
        if child is not None:
            raise RuntimeError("a started child is still running")
        pid, spawn_ns, out, err = spawn(request)
        child = (pid, spawn_ns, out, err)
        return {"pid": pid, "spawnNs": spawn_ns}
    if op == "stop":
        if child is None:
            raise RuntimeError("no started child")
        pid, spawn_ns, out, err = child
        child = None
        sample_ns = time.monotonic_ns()
        so_far = cpu_so_far_us(pid)
        exit_ns, status, usage = reap(pid, timeout_ms, term_first=True)
        return {"spawnNs": spawn_ns, "sampleNs": sample_ns, "cpuSoFarUs": so_far, **result(exit_ns, status, usage, out, err)}
    raise ValueError(f"unknown op {op}")


def main():
    signal.signal(signal.SIGALRM, on_alarm)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer = handle(json.loads(line))
        except Exception as error:  # noqa: BLE001 - every failure goes back to the bench as an answer
            answer = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
