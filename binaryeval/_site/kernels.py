"""The documents' Jupyter kernels: forked from a warm process, or started cold.

A kernel started as ``python -m ipykernel_launcher`` spends about 0.7 s of CPU starting, and the
document run in it then imports matplotlib, pandas, seaborn and binaryeval again (and pandas'
Styler and networkx for tables and rankings): about 3.5 s more, for every
document of the site and every report.  On Linux the renderer instead keeps one
*warm* process (``_warmserver.py``, started with the kernels' environment for the second kernel
of a renderer process) that has imported the kernel and those modules once, as a kernel imports
them, and forks it for each document: about 0.3 s of CPU a kernel.  The fork is the kernel ``jupyter_client`` would have
started: the same arguments, environment and working folder, the renderer's stdout and stderr,
its own process group; it starts with those modules imported and nothing run: no namespace, no
figure, no option set by an earlier document (each document has a fresh copy), and numpy's
legacy global generator gets a fresh seed, as in a new process.

A kernel is started cold, as before, when

- the platform is not Linux (``fork`` is unsafe on macOS and absent on Windows);
- the kernel is not this Python's ``ipykernel`` (another kernelspec, another provisioner or
  options for the process that a fork cannot honour);
- the document's folder holds a file that a cold kernel would read in place of what the warm
  process read already: a module or regular package named like one imported there (other than
  the standard library's, which come first on the path), or a ``matplotlibrc``;
- it is the first kernel of this environment in the renderer process (so a process that renders
  one document, ``binaryeval report``, starts one kernel, not a warm process as well);
- the environment variable ``BINARYEVAL_COLD_KERNELS`` is ``1``;
- the warm process could not start or fork (it is then not asked again for that environment).

The warm process ends with the renderer (its socket closes; kernels still running are ended).
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

__all__ = ["kernel_manager_class", "warm_kernels_enabled"]

_SERVER = Path(__file__).resolve().with_name("_warmserver.py")
_MAX_MESSAGE = 1 << 22
# variables that change in the renderer's environment without changing what the warm process
# imported: set per launch by pytest or jupyter_client, or set by joblib when the renderer imports
# it (for the OpenMP runtime of processes forked later).  A kernel still gets them as they are.
_VOLATILE = frozenset({"PYTEST_CURRENT_TEST", "JPY_PARENT_PID", "JPY_SESSION_NAME",
                       "KMP_INIT_AT_FORK"})


def warm_kernels_enabled() -> bool:
    """Whether documents' kernels may be forked from a warm process here.

    Examples
    --------
    >>> from binaryeval._site.kernels import warm_kernels_enabled
    >>> isinstance(warm_kernels_enabled(), bool)
    True
    """
    return (sys.platform.startswith("linux") and hasattr(os, "fork")
            and hasattr(socket, "send_fds") and os.environ.get("BINARYEVAL_COLD_KERNELS") != "1")


class _ForkedKernel:
    """The part of a ``Popen`` that ``jupyter_client``'s local provisioner uses, for a fork.

    The warm process forked the kernel: it is not this process's child, so it is watched by its
    process id.
    """

    stdin = stdout = stderr = None

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and not _running(self.pid):
            self.returncode = 0  # reaped by the warm process, which keeps the status
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout)
            time.sleep(0.05)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        import signal

        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        import signal

        self.send_signal(signal.SIGTERM)


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


class _WarmProcess:
    """The warm process of one kernel environment, and the socket to it."""

    def __init__(self, env: dict[str, str]) -> None:
        self.key = _env_key(env)
        self.lock = threading.Lock()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # the kernel reads JPY_PARENT_PID (the renderer, which it watches) when it is imported
        env = {**env, "JPY_PARENT_PID": str(os.getpid())}
        with theirs:
            self.proc = subprocess.Popen(
                [sys.executable, str(_SERVER), str(theirs.fileno())], env=env,
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.sock = ours
        ours.settimeout(600)  # the imports; then a fork is a moment
        try:
            reply = self._receive()
        except OSError:
            reply = {}
        ours.settimeout(60)
        self.ready = bool(reply.get("ready"))
        self.modules = frozenset(reply.get("modules") or ())

    def _receive(self) -> dict[str, Any]:
        data = self.sock.recv(_MAX_MESSAGE)
        return json.loads(data) if data else {}

    def fork(self, args: list[str], env: dict[str, str], cwd: str) -> int | None:
        """A kernel forked with these arguments, environment and folder: its process id."""
        message = json.dumps({"args": args, "env": env, "cwd": cwd}).encode()
        with self.lock:
            socket.send_fds(self.sock, [message], [1, 2])  # the kernel writes where ours do
            reply = self._receive()
        pid = reply.get("pid")
        return int(pid) if pid else None

    def close(self) -> None:
        self.sock.close()  # the warm process ends its kernels still running, and exits
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_warm: _WarmProcess | None = None
_refused: set[frozenset] = set()
_cold_once: set[frozenset] = set()
_lock = threading.Lock()


def _env_key(env: dict[str, str]) -> frozenset:
    """What the warm process for ``env`` depends on: the environment and the package's sources.

    Edited, the package is imported anew, as a cold kernel would import it.
    """
    package = Path(__file__).resolve().parents[1]
    sources = frozenset((str(p), st.st_size, st.st_mtime_ns)
                        for p in package.rglob("*.py") for st in [p.stat()])
    return frozenset((k, v) for k, v in env.items() if k not in _VOLATILE) | {sources}


def _shadowed(cwd: str, modules: frozenset) -> bool:
    """Whether a cold kernel in ``cwd`` would read a file there that the warm process did not.

    The kernel puts its folder on ``sys.path`` after the standard library (IPython's
    ``init_path``): a module or regular package there named like one the warm process
    imported, other than a standard library's, would be imported in its place; so would a
    ``matplotlibrc`` be read.
    """
    try:
        entries = list(os.scandir(cwd))
    except OSError:
        return True
    for entry in entries:
        if entry.name == "matplotlibrc":
            return True
        stem, dot, suffix = entry.name.partition(".")
        if stem not in modules or stem in sys.stdlib_module_names:
            continue
        if entry.is_dir():
            if os.path.exists(os.path.join(entry.path, "__init__.py")):
                return True
        elif dot and suffix.rpartition(".")[2] in ("py", "pyc", "so", "pyd"):
            return True
    return False


def _warm_process(env: dict[str, str]) -> _WarmProcess | None:
    global _warm
    key = _env_key(env)
    with _lock:
        if key in _refused:
            return None
        if key not in _cold_once:  # a process that renders one document pays for one kernel
            _cold_once.add(key)
            return None
        if _warm is not None and _warm.key != key:
            _warm.close()
            _warm = None
        if _warm is None:
            try:
                _warm = _WarmProcess(env)
            except OSError:
                _warm = None
            if _warm is None or not _warm.ready:
                if _warm is not None:
                    _warm.close()
                    _warm = None
                _refused.add(key)
                return None
        return _warm


@atexit.register
def _close_warm() -> None:
    global _warm
    with _lock:
        if _warm is not None:
            _warm.close()
            _warm = None


def _fork_kernel(cmd: list[str], kw: dict[str, Any]) -> int | None:
    """Fork the kernel ``cmd`` would start, or None where it must be started cold."""
    if not warm_kernels_enabled() or set(kw) - {"env", "cwd"} or len(cmd) < 3:
        return None
    # this very interpreter (a virtual environment's python links to its base interpreter, whose
    # packages are others: the path itself is compared)
    if cmd[1:3] != ["-m", "ipykernel_launcher"] or \
            os.path.abspath(cmd[0]) != os.path.abspath(sys.executable):
        return None
    env = dict(kw.get("env") or os.environ)
    cwd = str(kw.get("cwd") or os.getcwd())
    warm = _warm_process(env)
    if warm is None or _shadowed(cwd, warm.modules):
        return None
    env["JPY_PARENT_PID"] = str(os.getpid())  # as jupyter_client's launcher sets it
    try:
        pid = warm.fork([os.path.expanduser(a) for a in cmd[3:]], env, cwd)
    except OSError:
        pid = None
    if pid is None:  # the warm process failed: cold kernels from now on, for this environment
        _give_up(warm)
    return pid


def _give_up(warm: _WarmProcess) -> None:
    global _warm
    with _lock:
        _refused.add(warm.key)
        if _warm is warm:
            _warm = None
    warm.close()


@functools.lru_cache(maxsize=1)
def kernel_manager_class():
    """``jupyter_client``'s kernel manager, launching through the warm process where it can.

    Examples
    --------
    >>> from binaryeval._site.kernels import kernel_manager_class
    >>> kernel_manager_class().__name__
    'WarmKernelManager'
    """
    from jupyter_client import AsyncKernelManager
    from jupyter_client.provisioning import LocalProvisioner

    class WarmKernelManager(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            provisioner = self.provisioner
            # only where this jupyter_client's provisioner and manager have what a fork sets
            known = (type(provisioner) is LocalProvisioner
                     and all(hasattr(provisioner, name) for name in ("process", "pid", "pgid"))
                     and callable(getattr(self, "_reconcile_connection_info", None)))
            pid = _fork_kernel(kernel_cmd, kw) if known else None
            if pid is None:
                await super()._async_launch_kernel(kernel_cmd, **kw)
                return
            provisioner.process = _ForkedKernel(pid)
            provisioner.pid = provisioner.pgid = pid  # the fork leads its own process group
            provisioner.cwd = kw.get("cwd") or os.getcwd()
            self._reconcile_connection_info(provisioner.connection_info)

    return WarmKernelManager
