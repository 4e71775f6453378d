#!/usr/bin/env bash
# man-options.sh help PROGRAM | page FILE: the options (-x, --name) that a
# program's --help or a man page (docs/man/*.md) lists, one a line, sorted.
#
# From --help: the usage lines (from "usage:" to the first blank line), the
# indented lines that start with the program's name (a command's synopsis),
# and the option words that start an indented line (the option list; the
# prose after them is not read, so "sh -c" in a description is no option).
# A command listed as "  PROGRAM CMD" whose own --help starts with
# "usage: PROGRAM CMD" adds its options (vx run, vx why, vx clean); one that
# hands over to another program (vx graph: vx-graph's help) does not.
# From a page: the indented (code) lines of SYNOPSIS, OPTIONS and COMMANDS
# (and their ### subsections), read the same way. An option line's words are
# all its spellings: "-j, --jobs N", "--dry, --print", "--dry[=WHEN], --dry-run".
#
# table FILE...: the options the opt_spec tables in those C files accept
# (rows '{"name", 'x', OPT_...'), what --help and the page must both list.
set -eu

# lead: an option line's spellings, each with its arg, up to its description
# (awk, for the two readers below)
# shellcheck disable=SC2016  # awk's $0, not the shell's
lead='
function lead(s, out) {
	out = ""
	while (match(s, /^(-[a-zA-Z]|--[a-zA-Z][a-zA-Z0-9-]*)/)) {
		out = out (out == "" ? "" : ", ") substr(s, 1, RLENGTH)
		s = substr(s, RLENGTH + 1)
		if (match(s, /^(\[=[^ ]*\]|=[^ ,]*)/))
			s = substr(s, RLENGTH + 1)
		if (match(s, /^ [A-Z][A-Za-z0-9|%_]*(\.\.\.)?/))
			s = substr(s, RLENGTH + 1)
		if (substr(s, 1, 2) != ", ")
			break
		s = substr(s, 3)
	}
	return out
}'

words() { # every option word of stdin
	grep -oE -- '(^|[][ ,|(=])--?[a-zA-Z][a-zA-Z0-9-]*' | sed -E 's/^[][ ,|(=]//' || true
}

# lines NAME: stdin's synopsis lines whole, and its option lines' leading words
lines() {
	awk -v name="$1" "$lead"'
		/^usage:/ { u = 1 }
		/^[ \t]*$/ { u = 0 }
		u { print; next }
		$1 == name { print; next }
		/^[ \t]+-/ {
			s = $0
			sub(/^[ \t]+/, "", s)
			print lead(s)
		}'
}

case ${1:-} in
help)
	prog=$2
	name=$(basename "$prog")
	text=$("$prog" --help)
	{
		printf '%s\n' "$text" | lines "$name"
		for cmd in $(printf '%s\n' "$text" | awk -v name="$name" '$1 == name && $2 ~ /^[a-z]+$/ { print $2 }'); do
			sub=$("$prog" "$cmd" --help 2>/dev/null) || continue
			case $sub in "usage: $name $cmd"*) printf '%s\n' "$sub" | lines "$name" ;; esac
		done
	} | words | sort -u
	;;
page)
	name=$(basename "$2" .md)
	awk '/^## /{ on = ($0 ~ /^## (SYNOPSIS|OPTIONS|COMMANDS)$/) } on && /^    / { print substr($0, 5) }' "$2" |
		awk -v name="$name" '
			$1 == name || $1 ~ /^\[?-/ { print }' |
		awk -v name="$name" "$lead"'
			# a synopsis line whole; an option line up to its description
			$1 == name || $1 ~ /^\[/ { print; next }
			{ print lead($0) }' |
		words | sort -u
	;;
table)
	shift
	sed -nE "s/^[[:space:]]*\{\"([a-z][a-z0-9-]*)\", *(0|'(.)'), *OPT_.*/--\1 -\3/p" "$@" |
		tr ' ' '\n' | grep -v '^-$' | sort -u
	;;
*)
	echo "usage: man-options.sh help PROGRAM | page FILE | table FILE..." >&2
	exit 2
	;;
esac
