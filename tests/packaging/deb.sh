#!/usr/bin/env bash
# The Debian package as a user gets it: `cpack -G DEB` from BUILD_DIR into a scratch folder; its control
# fields (a Depends line that names the package of every shared library the tools link, among them
# yaml-cpp, libyaml, libcsv, NLopt, GLPK and CBC); then `dpkg -x` into a scratch root, where
# check-tree.sh runs each tool and finds the man pages, completions and examples.
#   deb.sh BUILD_DIR
# Exits 77 (skipped) when cpack, dpkg-deb or dpkg-shlibdeps is missing.
set -u
build=$(cd "$1" && pwd) || exit 1
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "skipped: $*"; exit 77; }
for tool in cpack dpkg-deb dpkg; do
  command -v "$tool" >/dev/null || skip "$tool not found; the .deb cannot be built or read here"
done
command -v dpkg-shlibdeps >/dev/null ||
  skip "dpkg-shlibdeps not found (package dpkg-dev): the .deb's Depends line cannot be computed"
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
version=$(cache CMAKE_PROJECT_VERSION) src=$(cache hetsched_SOURCE_DIR)
if [ -z "$version" ] || [ ! -d "$src" ] || [ ! -f "$build/CPackConfig.cmake" ]; then
  echo "FAIL: $build is not a configured hetsched build folder"; exit 1
fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

start=$(date +%s%N)
if ! cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1; then
  echo "FAIL: cpack -G DEB failed:"; tail -20 "$tmp/cpack.log"; exit 1
fi
echo "cpack -G DEB: $(( ($(date +%s%N) - start) / 1000000 )) ms"
debs=("$tmp"/pkg/*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then echo "FAIL: expected one .deb, got: ${debs[*]}"; exit 1; fi
deb=${debs[0]}
echo "package: $(basename "$deb")"

# --- Control fields. ------------------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = hetsched ] || bad "Package is '$(field Package)', not hetsched"
[ "$(field Version)" = "$version" ] || bad "Version is '$(field Version)', not the project's $version"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || bad "Architecture is '$(field Architecture)'"
[[ "$(field Maintainer)" =~ ^[^\<]+\ \<[^@\>]+@[^\>]+\>$ ]] || bad "Maintainer is not 'Name <email>': '$(field Maintainer)'"
for f in Section Description Installed-Size; do
  [ -n "$(field $f)" ] || bad "no $f field"
done
depends=$(field Depends)
echo "Depends: $depends"
dep_names=$(echo "$depends" | tr ',|' '\n' | awk 'NF { print $1 }')   # "a (>= 1), b | c" -> a b c
has_dep() { echo "$dep_names" | grep -qxF -- "$1"; }   # exactly this package
has_stem() { echo "$dep_names" | awk -v s="$1" 'index($0, s) == 1 { f = 1 } END { exit !f }'; }
# The libraries the design links dynamically, by the stem of their Debian runtime package's name.
for stem in libyaml-cpp libyaml-0 libcsv libnlopt-cxx libglpk coinor-libcbc libstdc++ libc6; do
  has_stem "$stem" || bad "Depends names no $stem* package"
done

# --- Unpack into a scratch root. ------------------------------------------------------------------
root=$tmp/root
dpkg -x "$deb" "$root" || { echo "FAIL: dpkg -x failed"; exit 1; }
outside=$(cd "$root" && find . -mindepth 1 -maxdepth 1 ! -name usr)
[ -z "$outside" ] || bad "the package installs outside /usr: $(tr '\n' ' ' <<<"$outside")"
# Every shared library a tool needs directly comes from a package that Depends names. One dpkg -S over
# every spelling of every library's path (merged /usr: a file may be registered under /lib or /usr/lib).
if command -v readelf >/dev/null; then
  declare -A path_of users_of owner
  for bin in "$root"/usr/bin/*; do
    for soname in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      path=$(ldd "$bin" | awk -v s="$soname" '$1 == s { print $3 }')
      [ -n "$path" ] || { bad "$(basename "$bin"): $soname not found by ldd"; continue; }
      path_of[$soname]=$path; users_of[$soname]+=" $(basename "$bin")"
    done
  done
  spellings() { echo "$1"; readlink -f "$1"; echo "/usr$1"; echo "${1#/usr}"; }
  candidates=()
  for soname in "${!path_of[@]}"; do
    mapfile -t -O ${#candidates[@]} candidates < <(spellings "${path_of[$soname]}")
  done
  while IFS= read -r line; do   # "pkg:arch[, pkg2]: /path"
    pkgs=${line%: *}; pkg=${pkgs%%,*}; owner[${line##*: }]=${pkg%%:*}
  done < <(dpkg -S "${candidates[@]}" 2>/dev/null | grep -v '^diversion')
  for soname in $(echo "${!path_of[@]}" | tr ' ' '\n' | sort); do
    pkg=""
    while IFS= read -r p; do [ -n "${owner[$p]:-}" ] && { pkg=${owner[$p]}; break; }; done < <(spellings "${path_of[$soname]}")
    if [ -z "$pkg" ]; then bad "$soname (${path_of[$soname]}, needed by${users_of[$soname]}) belongs to no installed package"
    elif ! has_dep "$pkg"; then bad "$soname (needed by${users_of[$soname]}) comes from $pkg, which Depends does not name"
    else echo "  $soname: $pkg"
    fi
  done
fi

"$here/check-tree.sh" "$root/usr" "$src" "$version" || fail=1
[ $fail -eq 0 ] && echo "ok: $(dpkg-deb -c "$deb" | grep -vc '/$') files, each tool ran from $root/usr/bin"
exit $fail
