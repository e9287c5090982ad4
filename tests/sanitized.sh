#!/bin/sh
# Runs a test built with the sanitizers (their options in the environment) with its output in
# LOG, then fails if the test failed or LOG holds a report of AddressSanitizer, LeakSanitizer,
# UndefinedBehaviorSanitizer ("runtime error") or ThreadSanitizer. Prints the test's summary
# lines, or on failure the end of LOG or the reports.
#   usage: tests/sanitized.sh LOG COMMAND...
log=$1
shift
"$@" > "$log" 2>&1 || { tail -40 "$log"; echo "sanitized: $* failed (whole output: $log)"; exit 1; }
reports='ERROR: (Address|Leak)Sanitizer|runtime error|WARNING: ThreadSanitizer'
if grep -qE "$reports" "$log"; then
    grep -E -A30 "$reports" "$log" | head -40
    echo "sanitized: a sanitizer report in $log"
    exit 1
fi
grep -E "^== |passed, .* failed|^variants:" "$log"
