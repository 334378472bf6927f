"""Run every benchmark in this folder, one after another, in this process."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    for path in sorted(HERE.glob("bench_*.py")):
        print(f"\n=== {path.name} ===", flush=True)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        old = sys.argv
        sys.argv = [str(path)]
        try:
            module.main()
        finally:
            sys.argv = old


if __name__ == "__main__":
    main()
