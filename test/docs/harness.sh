# Sourced before a page's examples (test/docs/examples.test.ts): strict bash, and a `curl`
# function around the real one. It records each call's status (curl writes it to stderr through
# --write-out, so stdout stays the body the example pipes on) and fails the example unless the
# status is a 2xx, or exactly the one the command declared (TABULA_EXPECT, from "# → NNN").
set -euo pipefail
shopt -s inherit_errexit

curl() {
  local expected=${TABULA_EXPECT:-2xx} errors status rc=0
  errors=$(mktemp)
  command curl "$@" --write-out '%{stderr}\n@@tabula-status %{http_code}\n' 2>"$errors" || rc=$?
  status=$(sed -n 's/^@@tabula-status \([0-9]*\)$/\1/p' "$errors" | tail -n 1)
  sed -e '/^@@tabula-status /d' -e '/^$/d' "$errors" >&2
  rm -f "$errors"
  printf '%s\t%s\t%s\t%s\n' "$TABULA_BLOCK" "${status:-000}" "$expected" "curl $*" >>"$TABULA_CURL_LOG"
  if ((rc != 0)); then
    echo "curl exited $rc: curl $*" >&2
    return "$rc"
  fi
  if [[ $expected == 2xx && $status == 2?? ]] || [[ $status == "$expected" ]]; then return 0; fi
  echo "curl answered $status where the docs expect $expected: curl $*" >&2
  return 1
}
