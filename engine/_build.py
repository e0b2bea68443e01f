"""cffi builder: compiles every csrc/*.c into engine._core (API mode, out of line).

The declarations cffi sees are csrc/api.h with preprocessor lines removed.
FIBSBOT_NATIVE=1 adds -march=native; FIBSBOT_SANITIZE=1 builds with ASan/UBSan.
"""
import os
import pathlib

from cffi import FFI  # type: ignore[import-untyped]  # cffi ships no stubs

ROOT = pathlib.Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"


def _cdef_text() -> str:
    lines = (CSRC / "api.h").read_text().splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith("#"))


def compile_args() -> list[str]:
    # -fno-semantic-interposition: calls between functions of one file may be
    # inlined (bg_sigmoid, bg_classify_board...) although the module is PIC
    args = ["-std=c11", "-O3", "-fno-strict-aliasing", "-ffp-contract=off", "-pthread",
            "-fno-semantic-interposition"]
    if os.environ.get("FIBSBOT_NATIVE") == "1":
        args.append("-march=native")
    if os.environ.get("FIBSBOT_SANITIZE") == "1":
        args += ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-O1"]
    return args


ffi = FFI()
ffi.cdef(_cdef_text())
ffi.set_source(
    "engine._core",
    '#include "api.h"',
    sources=[str(p.relative_to(ROOT)) for p in sorted(CSRC.glob("*.c"))],
    # the headers: a change rebuilds, and the sdist carries them (setuptools adds depends)
    depends=[str(p.relative_to(ROOT)) for p in sorted(CSRC.glob("*.h"))],
    include_dirs=[str(CSRC.relative_to(ROOT))],
    extra_compile_args=compile_args(),
    extra_link_args=["-pthread"]
    + (["-fsanitize=address,undefined"] if os.environ.get("FIBSBOT_SANITIZE") == "1" else []),
    libraries=["m"],
)

if __name__ == "__main__":
    os.chdir(ROOT)
    ffi.compile(verbose=True)
