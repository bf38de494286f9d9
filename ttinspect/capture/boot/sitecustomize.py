"""Run by Python's `site` before a captured program's code, in every Python process of a `ttinspect capture`
run (this folder is first on the program's PYTHONPATH): record the process, then run the sitecustomize this
one hides, if the environment has one. Nothing here may stop the program: a failure is one warning line.

Python started with -S (no site) or -I / -E (PYTHONPATH ignored) does not come here: it is not recorded.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _record() -> None:
    root = os.environ.get("TTINSPECT_CAPTURE_ROOT") or ""  # where `ttinspect capture` imported ttinspect from
    added = bool(root) and root not in sys.path
    if added:
        sys.path.insert(0, root)
    try:
        # only in a captured process: this file runs before every program of the run
        from ttinspect.capture.recording import begin_from_environment

        begin_from_environment()
    except Exception as error:  # e.g. another Python that cannot load this ttinspect: the program runs unrecorded
        print(f"ttinspect: warning: capture cannot record this process (Python {sys.version.split()[0]}, "
              f"{sys.executable}): {type(error).__name__}: {error}", file=sys.stderr)
    finally:
        if added and root in sys.path:
            sys.path.remove(root)


def _chain() -> None:
    """Import the sitecustomize that this folder hides (the next one on sys.path), as `site` would have;
    this folder leaves sys.path so the program never sees it."""
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != _HERE]
    mine = sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # type: ignore[import-not-found]  # noqa: F401  # the environment's own, now found
    except ImportError as error:
        if error.name != "sitecustomize":
            print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(error).__name__}: {error}",
                  file=sys.stderr)
        if mine is not None:
            sys.modules["sitecustomize"] = mine
    except Exception as error:  # as site.py says it
        print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(error).__name__}: {error}",
              file=sys.stderr)


_record()
_chain()
