#!/usr/bin/env bash
# The bad-input catalogue (issue 15): runs the cases of a table (cases.txt)
# against the installed-to-be tools and checks, for each, what docs/formats.md
# ("Bad input") promises:
#   - the exit status (2 for bad input and usage, 0 for --help);
#   - exactly one line on stderr, matching the case's regex (it names the
#     file:line or the option);
#   - nothing in the working directory changes: no output file, no temporary
#     left behind, no input touched;
#   - run a second time with every output the case names already present
#     (with known content), those files are left byte for byte as they were.
# Each run is bounded in time (TIME_LIMIT s) and, unless --no-memory-limit,
# in address space (MEMORY_LIMIT_KB), so a hang or a huge allocation fails
# the case instead of the machine.
#
# catalogue.sh --tools DIR[:DIR...] --data DIR --work DIR --cases FILE [--only NAME] [--no-memory-limit]
#
# cases.txt: one case per line, fields separated by " | " (space, bar,
# space; a field must not contain that sequence):
#   name | status | stderr regex (grep -E, or - for none) | outputs | setup | command
# `outputs` lists the files the command would write (space separated, or -);
# `setup` is shell run in the case directory before the snapshot (or -), to
# create the bad input; `command` is run by bash in the case directory with
# the tools first in PATH. The directory starts as a copy of --data.
set -u
tools="" data="" work="" cases="" only="" memory_limit=1
while [ $# -gt 0 ]; do
  case $1 in
    --tools) tools=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --no-memory-limit) memory_limit=0; shift ;;
    *) echo "catalogue.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$tools" ] && [ -d "$data" ] && [ -n "$work" ] && [ -f "$cases" ] || {
  echo "usage: catalogue.sh --tools DIRS --data DIR --work DIR --cases FILE [--only NAME] [--no-memory-limit]" >&2
  exit 2
}
export PATH="$tools:$PATH" LC_ALL=C
TIME_LIMIT=${TIME_LIMIT:-20}
MEMORY_LIMIT_KB=${MEMORY_LIMIT_KB:-1000000}
mkdir -p "$work"
sep=$'\x1f'

# Everything in a directory, with the content of every regular file.
snapshot() {
  (cd "$1" && find . -mindepth 1 -printf '%y %p -> %l\n' | sort && find . -type f -exec cksum {} + | sort)
}

failures=0 count=0
fail() {
  echo "FAIL $name ($pass): $*"
  echo "  command: $command"
  echo "  exit status: $got"
  echo "  stderr:"; sed 's/^/    /' "$case_dir.stderr"
  echo "  stdout (first lines):"; head -5 "$case_dir.stdout" | sed 's/^/    /'
  failures=$((failures + 1))
}

# run_case PASS: "fresh" (no output exists yet) or "existing" (every output
# named by the case exists beforehand and must stay as it was).
run_case() {
  pass=$1
  case_dir="$work/$name.$pass"
  rm -rf "$case_dir" "$case_dir.stdout" "$case_dir.stderr" "$case_dir.setup"
  mkdir -p "$case_dir" && cp -R "$data/." "$case_dir/" || { echo "FAIL $name: cannot set up $case_dir"; failures=$((failures + 1)); return; }
  if [ "$setup" != "-" ]; then
    (cd "$case_dir" && eval "$setup") > "$case_dir.setup" 2>&1 || {
      echo "FAIL $name: setup failed: $setup"; cat "$case_dir.setup"; failures=$((failures + 1)); return
    }
  fi
  if [ "$pass" = existing ]; then
    for o in $outputs; do
      [ -e "$case_dir/$o" ] || printf 'existing %s: must survive the failed command\n' "$o" > "$case_dir/$o"
    done
  fi
  local before after
  before=$(snapshot "$case_dir")
  (
    cd "$case_dir" || exit 99
    if [ "$memory_limit" = 1 ]; then ulimit -v "$MEMORY_LIMIT_KB"; fi
    exec timeout -k 2 "$TIME_LIMIT" bash -c "$command"
  ) > "$case_dir.stdout" 2> "$case_dir.stderr" < /dev/null
  got=$?
  after=$(snapshot "$case_dir")
  if [ "$got" = 124 ] || [ "$got" = 137 ]; then fail "no answer within $TIME_LIMIT s"; return; fi
  if [ "$got" != "$status" ]; then fail "exit status $got, expected $status"; return; fi
  if [ "$status" != 0 ]; then
    [ "$(wc -l < "$case_dir.stderr")" = 1 ] || { fail "expected exactly one line on stderr"; return; }
  fi
  if [ "$regex" != "-" ]; then
    grep -Eq -- "$regex" "$case_dir.stderr" || { fail "stderr does not match /$regex/"; return; }
  fi
  if [ "$before" != "$after" ]; then
    fail "the directory changed (diff before -> after below)"
    diff <(echo "$before") <(echo "$after") | sed 's/^/    /'
    return
  fi
  rm -rf "$case_dir" "$case_dir.stdout" "$case_dir.stderr" "$case_dir.setup"
}

line_no=0
while IFS= read -r line || [ -n "$line" ]; do
  line_no=$((line_no + 1))
  case $line in ''|'#'*) continue ;; esac
  IFS=$sep read -r name status regex outputs setup command <<< "${line// | /$sep}"
  if [ -z "${command:-}" ] || [ -z "$name" ]; then
    echo "FAIL $cases:$line_no: malformed case line (expected 6 fields separated by ' | ')"
    failures=$((failures + 1))
    continue
  fi
  [ -n "$only" ] && [ "$name" != "$only" ] && continue
  count=$((count + 1))
  [ "$outputs" = "-" ] && outputs=""
  run_case fresh
  [ -n "$outputs" ] && run_case existing
done < "$cases"

if [ -n "$only" ] && [ "$count" = 0 ]; then echo "FAIL: no case named '$only' in $cases"; exit 1; fi
echo "$count case(s), $failures failure(s)"
[ "$failures" = 0 ]
