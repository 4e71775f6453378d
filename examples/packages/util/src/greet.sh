greet() { printf 'hello, %s\n' "$1"; }
