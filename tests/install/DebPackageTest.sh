#!/usr/bin/env bash
# The Debian package as a user gets it (issue 20): CPack builds atrium_<version>_amd64.deb
# from this build, dpkg -x unpacks it into a temporary root, and the installed Atrium
# runs from there, with its own empty home, cache and settings:
#   - each executable's --version (the project's version, the protocol's and format's);
#   - atrium-pack verify on the installed sample lecture;
#   - desktop-file-validate on the desktop entry, and the .atrium MIME type compiled by
#     update-mime-database into a glob for *.atrium;
#   - the man pages and icons are there;
#   - the dependencies are dpkg-shlibdeps' (versioned libraries, Qt among them);
#   - a headless `atrium --screenshot` with no lecture named opens the installed sample
#     lecture, its heart from the shipped cache, and renders it.
# usage: DebPackageTest.sh BUILD_DIR PROJECT_VERSION
set -euo pipefail
build="$(realpath "$1")"
version="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

export HOME="$work/home" XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
unset XDG_DATA_DIRS
mkdir -p "$HOME"

(cd "$build" && cpack -G DEB -B "$work/pkg" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
deb="$work/pkg/atrium_${version}_amd64.deb"
[ -f "$deb" ] || fail "no $deb (cpack made: $(ls "$work/pkg"))"

depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
for lib in libqt6core6 libqt6widgets6 libopenscenegraph libzip4 libsodium23 libwebsockets libtbb libvtk9 libsvg; do
  case "$lib" in
    libsvg) grep -q "libqt6svg6" <<<"$depends" || fail "Depends lacks libqt6svg6 (Qt's SVG plugins)";;
    *) grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: dpkg-shlibdeps did not run?";;
  esac
done
grep -Eq 'libqt6core6[^,]*\(>= ' <<<"$depends" || fail "Depends names no versions: not computed by dpkg-shlibdeps"

root="$work/root"
dpkg -x "$deb" "$root"
usr="$root/usr"

for exe in atrium atrium-pack atrium-session atrium-sim; do
  [ -x "$usr/bin/$exe" ] || fail "$exe is not installed in /usr/bin"
  out="$("$usr/bin/$exe" --version)" || fail "$exe --version exited $?"
  echo "$out"
  grep -Eq "^$exe $version( \(git [^)]+\))?$" <<<"$(head -1 <<<"$out")" || fail "$exe --version: first line '$(head -1 <<<"$out")'"
  grep -Eq "^live-lecture protocol [0-9]+, content package format [0-9]+$" <<<"$out" || fail "$exe --version: no format versions"
done

lecture="$usr/share/atrium/left-heart.atrium"
[ -f "$lecture" ] || fail "the sample lecture is not in /usr/share/atrium"
[ -f "$usr/share/atrium/keys/demo-author.key" ] || fail "the demo key is not in /usr/share/atrium/keys"
ls "$usr/share/atrium/heart-cache/"heart-*.atriumheart >/dev/null 2>&1 || fail "no processed sample heart in /usr/share/atrium/heart-cache"
"$usr/bin/atrium-pack" verify "$lecture" || fail "atrium-pack verify of the installed sample lecture"

desktop="$usr/share/applications/atrium.desktop"
desktop-file-validate "$desktop" || fail "desktop-file-validate $desktop"
grep -q '^Categories=Education;Science;MedicalSoftware;$' "$desktop" || fail "desktop entry's categories"
grep -q '^MimeType=application/x-atrium-lecture;$' "$desktop" || fail "desktop entry's MIME type"

mkdir -p "$work/mime"
cp -r "$usr/share/mime/packages" "$work/mime/"
update-mime-database "$work/mime" || fail "update-mime-database refused atrium.xml"
grep -q 'application/x-atrium-lecture:\*\.atrium' "$work/mime/globs2" || fail "no *.atrium glob after update-mime-database"

for page in atrium atrium-pack atrium-session atrium-sim; do
  man="$usr/share/man/man1/$page.1.gz"
  gzip -t "$man" || fail "$man"
  zcat "$man" | head -1 | grep -q '^\.TH ' || fail "$man is not a man page"
done
[ -f "$usr/share/icons/hicolor/scalable/apps/atrium.svg" ] || fail "no scalable icon"
for size in 16 32 48 64 128 256; do
  png="$usr/share/icons/hicolor/${size}x${size}/apps/atrium.png"
  [ "$(file -b "$png" | grep -o "PNG image data, $size x $size")" = "PNG image data, $size x $size" ] || fail "$png: $(file -b "$png")"
done

# The installed viewer with nothing named: it opens the sample lecture (no display is
# needed for the rest; this part runs on the test run's X display).
out="$(cd "$work" && "$usr/bin/atrium" --screenshot "$work/shot.png" --size 640x400 --after-frames 3 --timeout 600)" ||
  fail "atrium --screenshot exited $?"
echo "$out"
grep -q '"lecture":"The left heart' <<<"$out" || fail "the installed atrium did not open the sample lecture"
grep -q '"heart_cache":"hit (shipped)"' <<<"$out" || fail "the sample heart was not taken from the shipped cache"
[ "$(file -b "$work/shot.png" | grep -o 'PNG image data, 640 x 400')" = "PNG image data, 640 x 400" ] || fail "no 640x400 screenshot"
echo "the Debian package installs and runs"
