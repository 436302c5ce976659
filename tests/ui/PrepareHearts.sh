#!/usr/bin/env bash
# ui.prepare_hearts, the fixture every UI test requires: each run starts from nothing.
# It removes the folders the last run's tests left (HOMES), then processes the adult
# phantom once into HEARTS/atrium/heart-cache, a read-only heart cache in the layout of
# an XDG data folder, which the tests find through XDG_DATA_DIRS (as an installed Atrium
# finds the heart it ships: sim/heart/HeartPipeline.h, defaultShippedCacheDirectories).
# Each test keeps its own empty cache and settings folders besides; the four-chamber
# heart comes from the sample lecture's bake (build/content/data), made by the build.
# usage: PrepareHearts.sh ATRIUM_SIM HEARTS HOMES
set -euo pipefail
sim="$1" hearts="$2" homes="$3"
rm -rf "$hearts" "$homes"
mkdir -p "$homes" "$hearts/atrium"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
XDG_CACHE_HOME="$tmp" "$sim" heart --phantom adult --particles 500 --beats 1 >/dev/null 2>"$tmp/log" ||
  { cat "$tmp/log" >&2; exit 1; }
mv "$tmp/atrium" "$hearts/atrium/heart-cache"
ls "$hearts/atrium/heart-cache"
