#!/usr/bin/env bash
# Builds, for this machine's platform (linux x86_64), what the release workflow publishes:
#   OUT/skillmod-VERSION-py3-none-manylinux2014_x86_64....whl   the binary as a Python wheel
#       (maturin, `bindings = "bin"`, stripped, linked with zig against glibc 2.17, so it installs
#       on old distributions too)
#   OUT/skillmod-VERSION.tgz                 the npm launcher (plain JavaScript, no postinstall)
#   OUT/skillmod-linux-x64-gnu-VERSION.tgz   the npm platform package holding the binary
# Needs python3 (venv) and npm; maturin and zig come from PyPI into a temporary venv, so only the
# package registries must be reachable. CARGO_TARGET_DIR is honoured (its `package/` subfolder).
# usage: scripts/package.sh OUT
set -euo pipefail
out="$(realpath -m "${1:?usage: scripts/package.sh OUT}")"
root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -1)"
launcher_version="$(node -p "require('$root/npm/skillmod/package.json').version")"
if [ "$launcher_version" != "$version" ]; then
  echo "npm/skillmod/package.json says $launcher_version, Cargo.toml $version: make them equal" >&2
  exit 2
fi
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The wheel. maturin and zig pinned, from PyPI.
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "maturin==1.16.0" "ziglang==0.17.1"
target="${CARGO_TARGET_DIR:-$root/target}/package"
(cd "$root/python" && PATH="$work/venv/bin:$PATH" maturin build --quiet --release --locked \
  --zig --compatibility manylinux2014 --out "$out" --target-dir "$target")
wheel="$(ls "$out"/skillmod-"$version"-py3-none-manylinux2014_x86_64*.whl)"

# The binary the wheel holds is the one the npm platform package ships.
python3 - "$wheel" "$work/skillmod" "$version" <<'PY'
import os, sys, zipfile
wheel, dest, version = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    with z.open(f"skillmod-{version}.data/scripts/skillmod") as src, open(dest, "wb") as dst:
        dst.write(src.read())
os.chmod(dest, 0o755)
PY

# npm: the platform package, then the launcher.
platform="$work/linux-x64-gnu"
mkdir -p "$platform/bin"
cp "$work/skillmod" "$platform/bin/skillmod"
sed -e "s/@TARGET@/linux-x64-gnu/; s/@VERSION@/$version/; s/@OS@/linux/; s/@CPU@/x64/" \
  -e 's/@LIBC@/"libc": ["glibc"],\n  /' "$root/npm/platform/package.json.in" >"$platform/package.json"
cp "$root/LICENSE" "$platform/"
cp -r "$root/npm/skillmod" "$work/launcher"
cp "$root/LICENSE" "$work/launcher/"
(cd "$platform" && npm pack --silent --pack-destination "$out" >/dev/null)
(cd "$work/launcher" && npm pack --silent --pack-destination "$out" >/dev/null)
# npm names a scoped package's tarball skillmod-linux-x64-gnu-VERSION.tgz.
ls "$out/skillmod-$version.tgz" "$out/skillmod-linux-x64-gnu-$version.tgz" >/dev/null
echo "built in $out:"
ls -1 "$out"
