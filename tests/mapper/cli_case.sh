#!/bin/sh
# Golden test of the rankmap command line.
# usage: cli_case.sh WORKDIR STATUS STDERR_REGEX OUTPUT -- rankmap args...
# Runs the command in WORKDIR; checks the exit status, that stderr matches
# STDERR_REGEX (and is exactly one line when STATUS is 2), and that OUTPUT
# exists after success and does not exist after a failure.
set -u
work=$1 status=$2 regex=$3 output=$4
shift 5
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
"$@" >stdout.txt 2>stderr.txt
got=$?
export LC_ALL=C
fail() { echo "FAIL: $*"; echo "--- command: $*"; echo "--- stderr:"; cat stderr.txt; echo "--- stdout:"; head -20 stdout.txt; exit 1; }
[ "$got" = "$status" ] || fail "exit status $got, expected $status"
grep -Eq -- "$regex" stderr.txt || fail "stderr does not match /$regex/"
if [ "$status" = 2 ]; then
  [ "$(wc -l <stderr.txt)" = 1 ] || fail "bad input must give exactly one line on stderr"
fi
if [ "$output" != "-" ]; then
  if [ "$status" = 0 ]; then [ -f "$output" ] || fail "no output file $output"
  else [ ! -e "$output" ] || fail "output file $output written despite the error"
  fi
  ls -a | grep -q '\.tmp\.' && fail "temporary file left behind"
fi
exit 0
