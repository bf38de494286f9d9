"""One tool call in a process of its own: `python -m ttinspect.mcpserver.worker`, the request as JSON on stdin,
the outcome as JSON on the descriptor that was stdout. The server starts one per call (in a session of its
own, so that the call's time limit ends it and every process it started), which keeps the user's code — what
it prints, the threads and processes it leaves, the modules it replaces — out of the server.

Descriptor 1 points at stderr for the whole call: whatever the user's code or a child process prints never
reaches the protocol. The outcome: {"ok": true, "data": JSON as `--json` gives it, "summary": text} or
{"ok": false, "message": "ttinspect: error: ...", "exit_code": N} — the CLI's line and exit code."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable

from ttinspect.errors import (EXIT_FAILED, EXIT_INTERNAL, CompileError, TTInspectError, ToolError,
                              interrupted_exit_code)
from ttinspect.files.terminal_text import shown, shown_block
from ttinspect.mcpserver import calls, calls_compare
from ttinspect.mcpserver.summaries import SUMMARIES
from ttinspect.refs.leftover_threads import exit_without_waiting, own_process

RUN: dict[str, Callable[[calls.Call], dict[str, Any]]] = {
    "list_kernels": calls.list_kernels, "list_capture": calls.list_capture, "report": calls.report,
    "dump": calls.dump, "export_stages": calls.export_stages, "diff": calls_compare.diff,
    "check": calls_compare.check, "sweep": calls_compare.sweep}


def failure(message: str, exit_code: int) -> dict[str, Any]:
    return {"ok": False, "message": f"ttinspect: error: {message}", "exit_code": exit_code}


def run(request: dict[str, Any]) -> dict[str, Any]:
    """The outcome of one request: {"tool", "arguments", "roots", "scratch"}."""
    tool = request.get("tool")
    if tool not in RUN:
        return failure(f"unknown tool {tool!r}; known: {', '.join(RUN)}", 2)
    roots = [str(root) for root in request.get("roots") or [os.getcwd()]]
    try:
        os.chdir(roots[0])  # relative paths are the first root's, as the CLI's are its working directory's
        # the JSON renderer every --json uses: loaded once the request is read
        from ttinspect.render.jsonout import dumps

        data = json.loads(dumps(RUN[tool](calls.Call(request.get("arguments") or {}, roots,
                                                     str(request.get("scratch") or roots[0])))))
        return {"ok": True, "data": data, "summary": SUMMARIES[tool](data)}
    except TTInspectError as error:
        text = shown_block(error) if isinstance(error, (CompileError, ToolError)) else shown(error)
        return failure(text, error.exit_code)
    except OSError as error:  # a path that cannot be used
        where = f": {error.filename}" if error.filename else ""
        return failure(shown(f"{error.strerror or error}{where}"), EXIT_FAILED)
    except KeyboardInterrupt as error:
        return failure("interrupted", interrupted_exit_code(error))
    except Exception as error:  # a bug in ttinspect: one line here, the traceback on the server's stderr
        import traceback  # only for a bug

        traceback.print_exc(file=sys.stderr)
        return failure(f"internal error: {type(error).__name__}: {shown(error)}", EXIT_INTERNAL)


def main() -> None:
    answer = os.dup(1)
    os.dup2(2, 1)  # every print — the user's code, a child process — goes to stderr, never to the answer
    sys.stdout = sys.stderr
    own_process()  # the import time limit's watchdog, the user's threads kept from the exit
    try:
        request = json.loads(sys.stdin.read() or "{}")
    except ValueError as error:
        outcome = failure(f"the request is not JSON: {error}", 2)
    else:
        outcome = run(request)
    data = json.dumps(outcome).encode()
    while data:
        data = data[os.write(answer, data):]
    os.close(answer)
    exit_without_waiting(0)  # a thread the user's file left running does not hold the exit
    sys.exit(0)


if __name__ == "__main__":
    main()
