#!/usr/bin/env bash
# A headless atrium whose wrapper (xvfb-run, a CI driver) is killed must not run on.
# usage: ViewerDiesWithWrapperTest.sh ATRIUM SCRATCH_DIR
set -u
atrium=$1
scratch=$2
mkdir -p "$scratch"
# The wrapper runs the viewer as its child and waits, as xvfb-run does; the viewer is
# asked for a screenshot it will not reach for minutes.
bash -c '"$1" --screenshot "$2/never.png" --after-frames 100000000 --timeout 600 --particles 2000 & wait' \
  wrapper "$atrium" "$scratch" &
wrapper=$!
viewer=""
for _ in $(seq 1 100); do
  viewer=$(pgrep -P "$wrapper" -f -- "--after-frames 100000000" || true)
  [ -n "$viewer" ] && break
  sleep 0.1
done
if [ -z "$viewer" ]; then echo "the viewer did not start"; kill -9 "$wrapper" 2>/dev/null; exit 1; fi
sleep 2 # let it load and draw
kill -9 "$wrapper"
for _ in $(seq 1 100); do
  # Gone, or a zombie waiting for whoever adopted it to reap it: either way it ended.
  state=$(awk '/^State:/ { print $2 }' "/proc/$viewer/status" 2>/dev/null || true)
  if [ -z "$state" ] || [ "$state" = "Z" ]; then echo "the viewer ($viewer) ended with its wrapper"; exit 0; fi
  sleep 0.1
done
echo "FAILED: the viewer ($viewer) still runs 10 s after its wrapper was killed"
kill -9 "$viewer" 2>/dev/null
exit 1
