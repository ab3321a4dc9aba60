#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# No circles between files (issue 32): in lib/, mkfs/, dump/ and fsck/,
# no two files call each other, directly or around a longer loop. The
# graph is read from the built objects: file A -> file B when A's object
# refers to a symbol B's object defines (a call or a variable; a header
# both include is no edge). Its strongly connected components of two
# files or more are the circles. fsck/ is in layers (issue 32, item 5;
# doc/ARCHITECTURE.md): main and the driver, the passes, the services
# they share; no arrow runs back up. One symbol is no arrow:
# cli_prog, the tool's name, which lib/cli has each tool's main file
# define and any of its files may print (a constant, not a call).

. "${top_srcdir:-.}/tests/lib.sh"

command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm"; exit 77; }

# folder:object-prefix of each program whose objects are read
graphs="lib:libextkit_la mkfs:extkit_mkfs dump:extkit_dump fsck:extkit_fsck"
enforced="lib mkfs dump fsck"

# edges DIR PREFIX: "from to symbol" lines, one per referenced symbol
edges() {
	for o in "$top_builddir/$1/$2"-*.o; do
		[ -f "$o" ] || continue
		f=${o##*/}; f=${f#"$2"-}; f=${f%.o}.c
		# an object left behind by a file since moved away
		[ -f "$top_srcdir/$1/$f" ] || continue
		nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 { print "D", f, $3 }'
		nm -u "$o" | awk -v f="$f" '{ print "U", f, $NF }'
	done | awk '$1 == "D" { def[$3] = $2; next }
		    $3 != "cli_prog" { use[++n] = $2 " " $3 }
		    END { for (i = 1; i <= n; i++) {
			    split(use[i], u, " ")
			    if ((u[2] in def) && def[u[2]] != u[1])
				    print u[1], def[u[2]], u[2] } }'
}

# circles: Tarjan's algorithm over "from to symbol" lines; prints one
# line per component of two files or more: its size, then its files.
circles() {
	awk '
	{ k = $1 SUBSEP $2
	  if (!(k in seen)) { seen[k] = 1; adj[$1] = adj[$1] " " $2 }
	  node[$1] = 1; node[$2] = 1 }
	function visit(v,    n, i, w, a, comp, size) {
		index_[v] = lowlink[v] = ++counter
		stack[++sp] = v; onstack[v] = 1
		n = split(adj[v], a, " ")
		for (i = 1; i <= n; i++) {
			w = a[i]
			if (!(w in index_)) {
				visit(w)
				if (lowlink[w] < lowlink[v]) lowlink[v] = lowlink[w]
			} else if (onstack[w] && index_[w] < lowlink[v])
				lowlink[v] = index_[w]
		}
		if (lowlink[v] != index_[v])
			return
		comp = ""; size = 0
		do {
			w = stack[sp--]; onstack[w] = 0
			comp = comp " " w; size++
		} while (w != v)
		if (size > 1)
			print size comp
	}
	END { for (v in node) if (!(v in index_)) visit(v) }' |
	sort -k1,1nr -k2
}

status=ok
for g in $graphs; do
	dir=${g%%:*}; prefix=${g#*:}
	set -- "$top_builddir/$dir/$prefix"-*.o
	if [ ! -f "$1" ]; then
		echo "SKIP: $dir/ is not built"
		exit 77
	fi
	edges "$dir" "$prefix" >"$tmpdir/$dir.edges"
	circles <"$tmpdir/$dir.edges" >"$tmpdir/$dir.circles"
	case " $enforced " in *" $dir "*) strict=1 ;; *) strict=0 ;; esac
	if [ ! -s "$tmpdir/$dir.circles" ]; then
		ok "$dir/: no circles between files"
		continue
	fi
	while read -r size files; do
		line="$dir/: a circle of $size files:$(printf ' %s' $files)"
		if [ $strict = 1 ]; then
			fail "$line"
			# the calls that close it, one symbol per arrow
			for a in $files; do
				for b in $files; do
					awk -v a="$a" -v b="$b" '$1 == a && $2 == b {
						print "    " a " -> " b " (" $3 ")"; exit }' \
						"$tmpdir/$dir.edges"
				done
			done
		else
			echo "info: $line"
		fi
	done <"$tmpdir/$dir.circles"
done
finish
