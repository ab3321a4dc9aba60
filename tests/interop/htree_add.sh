# SPDX-License-Identifier: GPL-2.0-or-later
# Adding to an indexed directory keeps the index (issue 13, Deliver 3):
# files reconnected by extkit-fsck into an htree /lost+found (1 KiB and
# 4 KiB blocks, metadata_csum; enough files to split leaves) leave an
# index that debugfs reads (more leaves than before, every name found
# through it: e2fsck -fn checks each hash against its leaf), e2fsck -fn
# clean, a second extkit-fsck -fn clean. With HTREE_ADD_BIG=1 (outside
# make check: 1-2 min on a loaded machine) also 7000 files on 1 KiB
# blocks (a 64M image), where the root fills: a level is added and
# index nodes split (indirect levels 0 -> 1, the root over several
# nodes); where loop mounts work, the kernel then finds every
# reconnected file by its name.

. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs debugfs e2fsck dumpe2fs
FSCK=$top_builddir/extkit-fsck
REGRESS_DIR=$top_srcdir/tests/regress
MKE2FS_CONFIG=$REGRESS_DIR/mke2fs.conf
export MKE2FS DEBUGFS DUMPE2FS REGRESS_DIR MKE2FS_CONFIG

levels() {
	"$DEBUGFS" -R "htree lost+found" image 2>/dev/null |
		sed -n 's/^[[:space:]]*Indirect levels: //p' | head -1
}

# kernel_lookups: every name in /lost+found found by stat through the
# kernel's index (0 when it cannot mount: nothing to say).
kernel_lookups() {
	[ "$(id -u)" = 0 ] || return 0
	mkdir -p mnt
	mount -o loop image mnt 2>/dev/null || return 0
	python3 -c 'import os, sys
d = sys.argv[1]
for n in os.listdir(d):
    os.stat(os.path.join(d, n))' mnt/lost+found
	_rc=$?
	umount mnt
	return $_rc
}

leaves() {
	"$DEBUGFS" -R "htree lost+found" image 2>/dev/null |
		sed -n 's/^Number of entries (count): //p' | head -1
}

cd "$tmpdir" || exit 99
shapes="1024:8 1024:150 4096:8 4096:500"
[ -n "${HTREE_ADD_BIG:-}" ] && shapes="$shapes 1024:7000"
for shape in $shapes; do
	bs=${shape%:*}
	n=${shape#*:}
	{
		name="${bs}b, $n files"
		(. "$REGRESS_DIR/helpers.sh" &&
		 . "$REGRESS_DIR/feature_helpers.sh" &&
		 htree_lf "$bs" "$([ "$n" -gt 1000 ] && echo 64M || echo 4M)" &&
		 orphans "$n" "name_of_a_reconnected_file_") >build.log 2>&1 ||
			{ fail "$name: building the image"; continue; }
		before=$(leaves)
		lv0=$(levels)
		"$FSCK" -fy image >fsck.log 2>&1
		rc=$?
		after=$(leaves)
		if [ "$rc" != 1 ] || [ "$(grep -c '^Unattached' fsck.log)" != "$n" ]; then
			fail "$name: extkit-fsck -fy exit $rc"
		elif ! "$DEBUGFS" -R "htree lost+found" image 2>/dev/null |
		    grep -q '^Root node dump'; then
			fail "$name: the index is gone"
		elif ! "$E2FSCK" -fn image >e2.log 2>&1; then
			fail "$name: e2fsck -fn finds errors"
			sed 's/^/    /' e2.log | head -10
		elif ! "$FSCK" -fn image >fsck2.log 2>&1; then
			fail "$name: a second extkit-fsck -fn finds errors"
		elif [ "$n" = 7000 ] && [ "$(levels)" != 1 ]; then
			fail "$name: indirect levels $lv0 -> $(levels), expected 1"
		elif ! kernel_lookups; then
			fail "$name: the kernel does not find every name"
		else
			ok "$name: index kept ($before -> $after root entries, levels $lv0 -> $(levels))"
		fi
	}
done
finish
