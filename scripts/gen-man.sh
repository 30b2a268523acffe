#!/usr/bin/env bash
# Writes the manual page transformer-workbench.1 from the program's own --help (help2man), with one section per
# subcommand taken from `<subcommand> --help`, so the page never drifts from what the program says.
# Usage: gen-man.sh EXECUTABLE OUTPUT.1
set -euo pipefail
exe=$1 out=$2
include=$(mktemp)
trap 'rm -f "$include"' EXIT
{
  echo '[DESCRIPTION]'
  echo 'Transformer Workbench is a desktop application for exploring the math inside modern large language models'
  echo 'by dragging sliders. Without a subcommand it opens the window; the subcommands below run without one.'
  echo
  echo '[SUBCOMMANDS]'
  for sub in export dump train scene-keys; do
    echo ".SS $sub"
    echo '.nf'
    # Every line as literal text: escape backslashes and protect lines that start with roff control characters.
    help=$("$exe" "$sub" --help)
    help=${help//"$exe"/transformer-workbench}  # the usage line names the program, not the build path
    printf '%s\n' "$help" | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
    echo '.fi'
  done
  echo
  echo '[FILES]'
  echo '.TP'
  echo '.I $XDG_CONFIG_HOME/transformer-workbench/last-session.json'
  echo 'The session restored at start-up and saved on exit.'
  echo '.TP'
  echo '.I /usr/share/transformer-workbench'
  echo 'Shipped scenes (lecture presets) and trained models.'
  echo
  echo '[ENVIRONMENT]'
  echo '.TP'
  echo '.B LANGUAGE, LC_ALL, LC_MESSAGES, LANG'
  echo 'Choose the interface language (zh for Simplified Chinese) unless --lang or the saved session says otherwise.'
} >"$include"
# help2man reads the first line of --version; the rest (kernel, fonts, data folder) stays out of the page.
help2man --no-info --no-discard-stderr --section 1 --name "explore the math inside modern LLMs" \
  --include "$include" --output "$out" "$exe"
