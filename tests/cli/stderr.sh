#!/usr/bin/env bash
# Runs a command with its stderr as its stdout, and its stdout dropped, so
# that check.sh can compare what a debugging flag prints with a file.
#   stderr.sh COMMAND...
"$@" 2>&1 >/dev/null
