#!/usr/bin/env bash
# A headless screenshot of a lecture leaves nothing in a private temporary folder; it
# removes what viewers that ended without cleaning up left there (their process gone)
# and keeps a running viewer's folder; and a killed save's temporary beside the package
# goes when the package is opened (issue 21).
# usage: LectureTempFilesTest.sh ATRIUM LECTURE.atrium SCRATCH_DIR [ATRIUM_PACK]
set -u
atrium=$1
lecture=$2
scratch=$3
pack=${4:-}
rm -rf "$scratch"
mkdir -p "$scratch/tmp" "$scratch/lectures"
export TMPDIR="$scratch/tmp"
cp "$lecture" "$scratch/lectures/left-heart.atrium"
holder=""
fail() {
  echo "FAILED: $*"
  ls -la "$TMPDIR" "$scratch/lectures"
  [ -n "$holder" ] && kill "$holder" 2>/dev/null
  exit 1
}

# A process that has ended, and what such processes left behind: a viewer's folder with
# a megabyte of media (killed before it locked it), an older build's folder untouched for
# hours, and a save of the package killed before its rename.
sh -c 'exit 0' &
dead=$!
wait "$dead"
mkdir -p "$TMPDIR/atrium-lecture-$dead-AbCdEf/lecture-1/media"
head -c 1048576 /dev/zero > "$TMPDIR/atrium-lecture-$dead-AbCdEf/lecture-1/media/big.bin"
mkdir -p "$TMPDIR/atrium-lecture-Xy12Zw"
touch -d '3 hours ago' "$TMPDIR/atrium-lecture-Xy12Zw"
echo "half a package" > "$scratch/lectures/.left-heart.atrium.tmp-$dead-00000000abcd"
# A viewer that still runs holds its folder's lock: its folder stays.
running="$TMPDIR/atrium-lecture-1-RuNnIn"
mkdir -p "$running"
( exec 9>"$running/.owner"; flock 9; exec sleep 600 ) &
holder=$!
for _ in $(seq 1 100); do flock -n "$running/.owner" true || break; sleep 0.1; done
flock -n "$running/.owner" true && fail "the running viewer's stand-in did not take its lock"

"$atrium" "$scratch/lectures/left-heart.atrium" --screenshot "$scratch/shot.png" --size 320x200 --timeout 300 \
  > "$scratch/stdout" 2> "$scratch/stderr" || fail "the screenshot run failed: $(cat "$scratch/stderr")"
[ -s "$scratch/shot.png" ] || fail "no screenshot was written"

left=$(cd "$TMPDIR" && ls -d atrium-lecture-* 2>/dev/null | tr '\n' ' ')
[ "$left" = "atrium-lecture-1-RuNnIn " ] || fail "in the temporary folder after the run: '$left' (expected only the running viewer's)"
beside=$(ls -A "$scratch/lectures" | tr '\n' ' ')
[ "$beside" = "left-heart.atrium " ] || fail "beside the package after the run: '$beside'"

# Once that viewer has gone too, the next run removes its folder.
kill "$holder"
wait "$holder" 2>/dev/null
holder=""
"$atrium" "$scratch/lectures/left-heart.atrium" --screenshot "$scratch/shot2.png" --size 320x200 --timeout 300 \
  > "$scratch/stdout2" 2> "$scratch/stderr2" || fail "the second run failed: $(cat "$scratch/stderr2")"
left=$(cd "$TMPDIR" && ls -d atrium-lecture-* 2>/dev/null | tr '\n' ' ')
[ -z "$left" ] || fail "in the temporary folder after the second run: '$left'"

# A lecture whose heart is a mesh series: the heart reader needs its phases as files, so
# they are extracted to this viewer's folder. Ended by SIGTERM (as a wrapper or the
# session ends it), the viewer removes that folder; a run that fails on a broken series
# (exit 2, through std::exit) leaves nothing either.
[ -n "$pack" ] || { echo "nothing left in the temporary folder or beside the package"; exit 0; }
sphere() { # OUT RADIUS: a closed sphere around the origin, in mm
  awk -v r="$2" 'function ring(i, j) { return 2 + (i - 1) * seg + (j % seg) }
  BEGIN { pi = atan2(0, -1); rings = 14; seg = 28
    printf "v 0 0 %g\n", r
    for (i = 1; i < rings; i++) for (j = 0; j < seg; j++) {
      t = pi * i / rings; p = 2 * pi * j / seg
      printf "v %g %g %g\n", r * sin(t) * cos(p), r * sin(t) * sin(p), r * cos(t) }
    printf "v 0 0 %g\n", -r
    bottom = 2 + (rings - 1) * seg
    for (j = 0; j < seg; j++) {
      printf "f 1 %d %d\n", ring(1, j), ring(1, j + 1)
      for (i = 1; i + 1 < rings; i++) {
        printf "f %d %d %d\n", ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)
        printf "f %d %d %d\n", ring(i, j), ring(i + 1, j + 1), ring(i, j + 1) }
      printf "f %d %d %d\n", bottom, ring(rings - 1, j + 1), ring(rings - 1, j) } }' > "$1"
}
series_lecture() { # OUT.atrium DIR: a lecture of DIR/heart/phase_0.obj and phase_1.obj
  cat > "$2/manifest.json" <<JSON
{"format": "atrium-content", "version": 1, "title": "A series heart", "author": "Test",
 "heart": {"source": "meshes", "entries": ["heart/phase_0.obj", "heart/phase_1.obj"], "cycleSeconds": 0.8},
 "files": [{"entry": "heart/phase_0.obj", "type": "model/obj"}, {"entry": "heart/phase_1.obj", "type": "model/obj"}]}
JSON
  "$pack" create "$1" --manifest "$2/manifest.json" --files "$2" > /dev/null || fail "atrium-pack create $1 failed"
}
mkdir -p "$scratch/series/heart" "$scratch/broken/heart"
sphere "$scratch/series/heart/phase_0.obj" 30
sphere "$scratch/series/heart/phase_1.obj" 27
series_lecture "$scratch/lectures/series.atrium" "$scratch/series"
"$atrium" "$scratch/lectures/series.atrium" --screenshot "$scratch/never.png" --after-frames 100000 --timeout 600 \
  > "$scratch/stdout3" 2> "$scratch/stderr3" &
viewer=$!
for _ in $(seq 1 600); do
  ls -d "$TMPDIR"/atrium-lecture-*/lecture-*/heart-series > /dev/null 2>&1 && break
  kill -0 "$viewer" 2> /dev/null || break
  sleep 0.1
done
ls -d "$TMPDIR"/atrium-lecture-*/lecture-*/heart-series > /dev/null 2>&1 ||
  { kill -9 "$viewer" 2> /dev/null; fail "the series lecture's heart was never extracted: $(cat "$scratch/stderr3")"; }
kill -TERM "$viewer"
wait "$viewer"
rc=$?
[ "$rc" = 143 ] || fail "the viewer ended with $rc on SIGTERM, not 143 (128 + SIGTERM): $(cat "$scratch/stderr3")"
left=$(cd "$TMPDIR" && ls -d atrium-lecture-* 2>/dev/null | tr '\n' ' ')
[ -z "$left" ] || fail "in the temporary folder after SIGTERM: '$left'"

printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' > "$scratch/broken/heart/phase_0.obj"
cp "$scratch/broken/heart/phase_0.obj" "$scratch/broken/heart/phase_1.obj"
series_lecture "$scratch/lectures/broken.atrium" "$scratch/broken"
"$atrium" "$scratch/lectures/broken.atrium" --screenshot "$scratch/never.png" --timeout 300 \
  > "$scratch/stdout4" 2> "$scratch/stderr4"
rc=$?
[ "$rc" != 0 ] || fail "a lecture with a broken heart gave a screenshot"
left=$(cd "$TMPDIR" && ls -d atrium-lecture-* 2>/dev/null | tr '\n' ' ')
[ -z "$left" ] || fail "in the temporary folder after a failed run (exit $rc): '$left'"
echo "nothing left in the temporary folder or beside the package, after a screenshot, SIGTERM or a failed run"
