#!/usr/bin/env bash
# Compile solver/search.py with mypyc into solver/_native*.so, the
# same search about twice as fast (solver/__init__.py loads it only while
# search.py and the engine still have the digest recorded in it,
# solver/sources.py), and solver/_core.c into solver/_core*.so,
# the depth-first search in C (search.py uses it only while _core.c has the digest
# recorded in it).  Usage: build-solver.sh [python]
set -euo pipefail

PY=${1:-.venv/bin/python}
MYPYC="$(cd "$(dirname "$PY")" && pwd)/mypyc"
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/solver/search.py

[[ -x $MYPYC ]] || { echo "build-solver: $MYPYC not found (pip install -e '.[native]')" >&2; exit 1; }
command -v "${CC:-cc}" >/dev/null || { echo "build-solver: no C compiler (apt-get install gcc python3-dev)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# mypy reads the engine for the types, so both packages are copied whole; the
# build's C files and objects stay in the temporary folder.
cp -r "$root/engine" "$root/solver" "$work/"
rm -f "$work"/solver/_native*.so
native=$work/solver/_native.py
cp "$src" "$native"
printf '\n#: The digest of the sources this module was compiled from (solver/sources.py).\nSOURCE_DIGEST: Final = "%s"\n' \
    "$("$PY" "$root/solver/sources.py")" >> "$native"
if ! (cd "$work" && "$MYPYC" solver/_native.py >build.log 2>&1); then
    cat "$work/build.log" >&2
    echo "build-solver: mypyc failed" >&2
    exit 1
fi
rm -f "$root"/solver/_native*.so
cp "$work"/solver/_native*.so "$root/solver/"
echo "build-solver: compiled $(ls "$root"/solver/_native*.so | wc -l) modules from search.py"

core=$root/solver/_core.c
include=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
suffix=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
core_digest=$(sha256sum "$core" | cut -d' ' -f1)
rm -f "$root"/solver/_core*.so
"${CC:-cc}" -O3 -Wall -shared -fPIC -I"$include" -DSOURCE_DIGEST="\"$core_digest\"" \
    "$core" -o "$work/_core$suffix"
cp "$work/_core$suffix" "$root/solver/"
echo "build-solver: compiled _core$suffix from _core.c"
