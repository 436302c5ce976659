#!/usr/bin/env bash
# A headless screenshot of a lecture leaves nothing in a private temporary folder; it
# removes what viewers that ended without cleaning up left there (their process gone)
# and keeps a running viewer's folder; and a killed save's temporary beside the package
# goes when the package is opened (issue 21).
# usage: LectureTempFilesTest.sh ATRIUM LECTURE.atrium SCRATCH_DIR
set -u
atrium=$1
lecture=$2
scratch=$3
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
echo "nothing left in the temporary folder or beside the package"
