#!/usr/bin/env bash
# `pip install --no-build-isolation .` into a fresh virtual environment that
# sees Debian's packages (scikit-build-core, pybind11), as docs/python.md says;
# then the installed package runs O2 from outside the source tree.
#   pip_install.sh PYTHON SOURCE_DIR
set -euo pipefail
python="${1:?usage: pip_install.sh PYTHON SOURCE_DIR}"
source_dir="${2:?usage: pip_install.sh PYTHON SOURCE_DIR}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$python" -m venv --system-site-packages "$work/venv"
# --no-index: Debian's packages are all there is; pip never reaches for the index.
# -O0 instead of the package's -O2: the test checks that pip builds, installs
# and runs the package, not how fast the extension is, in half the time.
"$work/venv/bin/pip" install --quiet --no-build-isolation --no-index \
  --config-settings=cmake.define.CMAKE_CXX_FLAGS_RELEASE=-O0 "$source_dir"

cd "$work"
"$work/venv/bin/python" - "$work" <<'PY'  # own Python: the virtual environment's, with the package pip built
import sys
import passline

assert passline.__file__.startswith(sys.argv[1]), passline.__file__
mod = passline.IRModule.parse("#[export]\ndef @main(%x: i64) -> i64 {\n  mul(%x, add(3, 4))\n}\n")
out = str(passline.create("O2")(mod))
assert "mul(%x, 7)" in out, out
print("installed at", passline.__file__)
PY
