"""The warm process that forks the documents' kernels (see :mod:`binaryeval._site.kernels`).

Run as a script (``python _warmserver.py FD``) with the kernels' environment, never imported by the
package.  It imports what a kernel and a document import (IPython's kernel, numpy, pandas,
matplotlib, seaborn, binaryeval) as they are imported inside a kernel, then waits on the socket
``FD``.  For each request (a kernel's arguments, environment and folder, with the renderer's
stdout and stderr) it forks: the child becomes the kernel ``python -m ipykernel_launcher ARGS``
would start in that folder, and the reply is its process id.  The children are reaped here; when
the renderer closes the socket, any child still running is ended and the process exits.
"""

import sys

if __name__ == "__main__":
    # this file's folder is not the kernel's: Python put it first on the path (a kernel started
    # as `python -m ipykernel_launcher` takes its folder off the path while it loads too)
    del sys.path[0]

import builtins  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import traceback  # noqa: E402

#: imported before any fork: the kernel (as its launcher imports it), then what the site's
#: documents and reports import (as a chunk imports them, inside a kernel)
KERNEL = ("ipykernel.kernelapp", "ipykernel.debugger", "psutil")  # the last two: at its start
#: (not joblib: it sets KMP_INIT_AT_FORK on import, which a kernel whose document does not
#: import it has not)
PRELOAD = ("numpy", "pandas", "pandas.io.formats.style", "matplotlib", "matplotlib.pyplot",
           "seaborn", "PIL.Image", "networkx", "binaryeval", "binaryeval._site.tables")
_MAX_MESSAGE = 1 << 22
_children: set[int] = set()
# what the imports did to the environment (ipykernel's debugger sets PYDEVD_USE_FRAME_EVAL): done
# again on each kernel's own environment, as if they ran there
_ENV_SET: dict[str, str] = {}
_ENV_UNSET: set[str] = set()


class _KernelShell:
    """An IPython shell with a kernel, as a library sees it when it asks at import time.

    pandas sets ``display.max_columns`` to 20 inside a kernel, 0 in a terminal.  Only during the
    imports; the child's real shell replaces it.
    """

    kernel = None


def _kernel_stream(fd: int):
    """A stream named as a kernel's ``sys.stdout`` is (pandas reads its encoding at import)."""
    import io

    return io.TextIOWrapper(open(os.dup(fd), "wb"), encoding="UTF-8")


def _preload() -> list[str]:
    import importlib

    before = dict(os.environ)
    try:
        return _import_all(importlib)
    finally:
        _ENV_SET.update((k, v) for k, v in os.environ.items() if before.get(k) != v)
        _ENV_UNSET.update(set(before) - set(os.environ))


def _import_all(importlib) -> list[str]:
    for name in KERNEL:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:
            if name == KERNEL[0]:
                raise
    streams = sys.stdout, sys.stderr
    builtins.get_ipython = _KernelShell
    builtins.__IPYTHON__ = True
    sys.stdout, sys.stderr = _kernel_stream(1), _kernel_stream(2)
    try:
        for name in PRELOAD:
            try:
                importlib.import_module(name)
            except ModuleNotFoundError:
                continue
    finally:
        del builtins.get_ipython, builtins.__IPYTHON__
        for stream in (sys.stdout, sys.stderr):
            stream.close()
        sys.stdout, sys.stderr = streams
    return sorted({name.partition(".")[0] for name in sys.modules})


def _reap(*_args) -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _children.discard(pid)


def _run_kernel(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In the child: become the kernel (never returns)."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()  # its own process group, as jupyter_client starts a kernel
        conn.close()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        for fd in fds:
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ.update(_ENV_SET)
        for name in _ENV_UNSET:
            os.environ.pop(name, None)
        import ipykernel_launcher

        sys.argv = [ipykernel_launcher.__file__, *request["args"]]
        if "numpy.random" in sys.modules:  # a fresh seed for the legacy global generator, as
            sys.modules["numpy.random"].seed()  # a new process would draw one
        from ipykernel import kernelapp

        code = 0
        kernelapp.launch_new_instance()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - the child must not return into the server's loop
        traceback.print_exc()
        code = 1
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _serve(conn: socket.socket) -> None:
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(conn, _MAX_MESSAGE, 2)
        except OSError:
            break
        if not data:
            break
        request = json.loads(data)
        try:
            pid = os.fork()
        except OSError as exc:
            for fd in fds:
                os.close(fd)
            conn.send(json.dumps({"error": f"fork failed: {exc}"}).encode())
            continue
        if pid == 0:
            _run_kernel(conn, request, fds)
        for fd in fds:
            os.close(fd)
        _children.add(pid)
        conn.send(json.dumps({"pid": pid}).encode())


def main() -> None:
    conn = socket.socket(fileno=int(sys.argv[1]))
    try:
        modules = _preload()
    except BaseException:  # noqa: BLE001 - told to the renderer, which starts kernels cold
        conn.send(json.dumps({"ready": False, "error": traceback.format_exc()}).encode())
        return
    signal.signal(signal.SIGCHLD, _reap)
    conn.send(json.dumps({"ready": True, "modules": modules}).encode())
    try:
        _serve(conn)
    finally:
        _end_children()


def _end_children(grace: float = 5.0) -> None:
    """End the kernels still running (their renderer has gone) and reap them."""
    import time

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    _reap()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in list(_children):
            try:
                os.killpg(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + grace
        while _children and time.monotonic() < deadline:
            _reap()
            time.sleep(0.05)
        if not _children:
            return


if __name__ == "__main__":
    main()
