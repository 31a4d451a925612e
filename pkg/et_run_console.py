"""et-run: the console script of the executorch_runtime wheel (installed as _et_run.py).

    et-run model.pte [--method NAME] [--input file.npy ...] [--iterations N] ...

is ``python -m executorch_runtime run model.pte ...``: it loads the program, runs one method and
prints its outputs and timings (see ``executorch_runtime.__main__``).
"""

import sys


def main(argv=None) -> int:
    from executorch_runtime.__main__ import main as _main

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("-h", "--help"):
        return _main(["run", "--help"])
    return _main(["run", *argv])


if __name__ == "__main__":
    sys.exit(main())
