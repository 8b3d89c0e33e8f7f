"""`python -m atomq ARGS`: atomq's command line. A wheel carries the host-only commands
(atomq/bin/atomq, its data in atomq/share/atomq); a build tree's package runs build/bin/atomq."""
import os
import pathlib
import sys


def cli():
    here = pathlib.Path(__file__).resolve().parent
    for candidate in (here / "bin" / "atomq", here.parent.parent / "bin" / "atomq"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def main():
    program = cli()
    if program is None:
        sys.exit("atomq: this Python package has no atomq command line beside it (atomq/bin/atomq)")
    sys.stdout.flush()
    os.execv(str(program), ["atomq", *sys.argv[1:]])


if __name__ == "__main__":
    main()
