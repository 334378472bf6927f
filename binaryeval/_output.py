"""Writing files: never over an input, never over a file without leave, never half a file.

Every file the package writes for a command (a result table, a summary page, a report, an
exported dataset) goes through :func:`check_output` before any work is done and through
:func:`write_atomic` at the end:

- a destination that is one of the inputs is refused, whatever the leave to overwrite: the paths
  are compared after resolving symbolic links, and an existing destination is compared with each
  input by device and inode (a hard link to the input is the input); a destination inside an
  input folder (a folder of Parquet files) is refused too;
- an existing file is replaced only with leave (``--overwrite`` on the command line);
- a folder, or a file in a folder that does not exist, is refused with a message, not a
  traceback;
- the content is written to a temporary file in the destination's folder and renamed over the
  destination (atomic on POSIX and Windows), so a run that fails or is interrupted leaves the
  old file, or nothing, and no half-written file.  A symbolic link at the destination is
  replaced by the file, never written through.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from .errors import OutputError

__all__ = ["check_output", "input_paths", "write_atomic", "write_text"]


def input_paths(*sources: str | Path | None) -> list[Path]:
    """The files and folders among ``sources`` (a dataset name or None is no path).

    Examples
    --------
    >>> from binaryeval._output import input_paths
    >>> input_paths(None, "wmt15")
    []
    """
    out = []
    for source in sources:
        if source is None:
            continue
        path = Path(source)
        if path.exists():
            out.append(path)
    return out


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.resolve() == b.resolve():
            return True
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> bool:
    try:
        return folder.resolve() in path.resolve().parents
    except OSError:
        return False


def check_output(target: str | Path, *, inputs: Iterable[Path] = (), force: bool = False,
                 option: str = "--output", force_hint: str = "--overwrite") -> Path:
    r"""``target`` as a Path, if the package may write there; else an :class:`OutputError`.

    Parameters
    ----------
    target : str or Path
        The file to write.
    inputs : iterable of Path
        The files (and folders) the command reads: never written over.
    force : bool
        Replace an existing file (never an input).
    option : str
        How the destination was given, for messages (``--output``, ``output``).
    force_hint : str
        How to give leave to replace a file, for messages (``--overwrite``, ``overwrite=True``).

    Returns
    -------
    Path

    Examples
    --------
    >>> from pathlib import Path
    >>> from binaryeval._output import check_output
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> data = folder / "ratings.csv"
    >>> _ = data.write_text("human,metric\n1,0\n")
    >>> check_output(folder / "result.csv", inputs=[data]).name
    'result.csv'
    >>> check_output(data, inputs=[data], force=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    binaryeval.errors.OutputError: --output '...ratings.csv' is an input of this command (...ratings.csv); write to another file
    """
    path = Path(target)
    shown = f"{option} {str(target)!r}"
    if path.is_dir():
        raise OutputError(f"{shown} is a folder; give a file name, e.g. "
                          f"{str(path / 'result.csv')!r}")
    parent = path.parent
    if not parent.exists():
        raise OutputError(f"{shown}: the folder {str(parent)!r} does not exist; create it first "
                          "or write elsewhere")
    if not parent.is_dir():
        raise OutputError(f"{shown}: {str(parent)!r} is not a folder")
    for source in inputs:
        if source.is_dir():
            if _inside(path, source):
                raise OutputError(f"{shown} lies inside the input folder {str(source)!r}; "
                                  "write the result elsewhere")
        elif _same_file(path, source):
            raise OutputError(f"{shown} is an input of this command ({source}); write to "
                              "another file")
    if (path.exists() or path.is_symlink()) and not force:
        raise OutputError(f"{shown} exists; pass {force_hint} to replace it, or choose another "
                          "name")
    return path


def _new_file_mode(target: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(target).st_mode)  # a replaced file keeps its permissions
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def write_atomic(target: str | Path, write: Callable[[Path], None]) -> Path:
    r"""Call ``write(temporary path)`` and rename the result over ``target``.

    The temporary file is in ``target``'s folder; it is removed when ``write`` fails.

    Examples
    --------
    >>> from pathlib import Path
    >>> from binaryeval._output import write_atomic
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "note.txt"
    >>> write_atomic(out, lambda tmp: tmp.write_text("done\n")).read_text()
    'done\n'
    """
    target = Path(target)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        os.chmod(tmp, _new_file_mode(target))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def write_text(target: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``target`` through :func:`write_atomic`."""
    return write_atomic(target, lambda tmp: tmp.write_text(text, encoding="utf-8"))
