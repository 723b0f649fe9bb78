# Sourced before a page's examples (test/docs/examples.test.ts): strict bash, and a `curl`
# function around the real one. It records each call's status and fails the example unless the
# status is a 2xx, or exactly the one the command declared (TABULA_EXPECT, from "# → NNN"). The
# body of an unexpected answer goes to stderr too: examples often pipe it away (`$(curl … | jq)`).
set -euo pipefail
shopt -s inherit_errexit

# Bash builtins only around the real curl (no mktemp, sed or rm per call): the pages make some
# 150 calls, and every extra process start is slow on a loaded 2-core machine.
curl() {
  local expected=${TABULA_EXPECT:-2xx} output body status='' rc=0
  # The body (unless the command writes it elsewhere with -o) and then the status come through
  # stdout; a command substitution keeps everything but the trailing newlines, which follow the
  # status. curl's own messages go to stderr unchanged.
  output=$(command curl "$@" --write-out '\n@@tabula-status %{http_code}') || rc=$?
  body=${output%$'\n'@@tabula-status *}
  if [[ $output =~ @@tabula-status\ ([0-9]*)$ ]]; then status=${BASH_REMATCH[1]}; fi
  printf '%s' "$body"
  printf '%s\t%s\t%s\t%s\n' "$TABULA_BLOCK" "${status:-000}" "$expected" "curl $*" >>"$TABULA_CURL_LOG"
  if ((rc != 0)); then
    echo "curl exited $rc: curl $*" >&2
    return "$rc"
  fi
  if [[ $expected == 2xx && $status == 2?? ]] || [[ $status == "$expected" ]]; then return 0; fi
  echo "curl answered $status where the docs expect $expected: curl $*" >&2
  printf 'its body: %s\n' "${body:0:2000}" >&2
  return 1
}
