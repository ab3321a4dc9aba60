# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the f_ cases of issue 13's later features (quota, orphan
# file); a script sources it after helpers.sh:
#	. "$REGRESS_DIR/feature_helpers.sh"

# quota_img BLOCKSIZE [mke2fs options...]: an ext4 image with the
# project feature, the standard tree (populate) and files of other
# owners, then user, group and project quotas counted by tune2fs (as
# mke2fs -d leaves the usage stale): e2fsck -fn finds it clean.
#   /d1/file1 uid 1000   /d1/file2 gid 2000   /top project 7
quota_img() {
	_bs=$1
	shift
	need_tools tune2fs
	mkimg4 "$_bs" 4M -I 256 -O project "$@"
	populate
	dbg "sif d1/file1 uid 1000" "sif d1/file2 gid 2000" \
	    "sif top projid 7"
	$TUNE2FS -O quota -Q usrquota,grpquota,prjquota image \
		>/dev/null 2>&1 ||
		{ echo "quota_img: tune2fs failed" >&2; exit 99; }
	$E2FSCK -fn image >/dev/null 2>&1 ||
		{ echo "quota_img: e2fsck finds the image damaged" >&2; exit 99; }
}

# qblk INO Q: the filesystem block holding quota block Q (1 KiB) of
# quota inode INO, and the byte offset of Q in it ("BLOCK OFFSET").
qblk() {
	_bs=$(bsize)
	_per=$((_bs / 1024))
	echo "$(blk "<$1>" $(($2 / _per))) $((($2 % _per) * 1024))"
}

# qedit INO Q OFF FIELD VALUE: a byte edit (u8@N, u16@N, u32@N) at byte
# OFF of quota block Q of quota inode INO.
qedit() {
	set -- "$1" "$2" "$3" "$4" "$5" $(qblk "$1" "$2")
	dirent "$6" "$(($7 + $3))" "$4" "$5"
}

# prj_ino: the project quota inode of image.
prj_ino() {
	$DUMPE2FS -h image 2>/dev/null |
		sed -n 's/^Project quota inode: *//p'
}

# of_ino: the orphan file's inode number.
of_ino() {
	$DUMPE2FS -h image 2>/dev/null | sed -n 's/^Orphan file inode: *//p'
}

# orphan_slots LBLK SLOT=INO... [--bad-csum]: puts inode numbers into
# block LBLK of the orphan file (checksum set, or set wrong).
orphan_slots() {
	_of=$(of_ino)
	_lb=$1
	shift
	_gen=$($DEBUGFS -R "stat <$_of>" image 2>/dev/null |
		sed -n 's/^Generation: *\([0-9]*\).*/\1/p')
	python3 "$REGRESS_DIR/orphan_file.py" image "$(blk "<$_of>" "$_lb")" \
		"$_gen" "$_of" "$@"
}

# orphan_img BLOCKSIZE [mke2fs options...]: ext4 with an orphan file and
# the standard tree (populate); 4 MiB (16 MiB with 4 KiB blocks: mke2fs
# makes an orphan file only with a journal).
orphan_img() {
	_bs=$1
	shift
	_sz=4M
	[ "$_bs" -lt 4096 ] || _sz=16M
	mkimg4 "$_bs" "$_sz" -O orphan_file "$@"
	populate
}

# htree_lf BLOCKSIZE [SIZE]: an image (4M by default) (metadata_csum) whose /lost+found is an
# indexed directory of 120 names (made anew, filled, indexed by
# e2fsck -D), so that reconnecting a file adds to an htree directory.
htree_lf() {
	mkimg4 "$1" "${2:-4M}"
	{
		echo "rmdir lost+found"
		echo "mkdir lost+found"
		_i=1
		while [ "$_i" -le 120 ]; do
			echo "write /dev/null lost+found/a_file_with_a_long_name_number_$_i"
			_i=$((_i + 1))
		done
	} | $DEBUGFS -w image -f - >/dev/null 2>&1
	$E2FSCK -fyD image >/dev/null 2>&1
	$E2FSCK -fn image >/dev/null 2>&1 ||
		{ echo "htree_lf: e2fsck finds the image damaged" >&2; exit 99; }
}

# orphans N PREFIX: N files with data in / named PREFIX<i>, then their
# names removed (debugfs unlink: links stay 1): pass 4 reconnects them.
orphans() {
	printf 'data\n' >f
	{
		_i=1
		while [ "$_i" -le "$1" ]; do
			echo "write f $2$_i"
			_i=$((_i + 1))
		done
	} | $DEBUGFS -w image -f - >/dev/null 2>&1
	{
		_i=1
		while [ "$_i" -le "$1" ]; do
			echo "unlink $2$_i"
			_i=$((_i + 1))
		done
	} | $DEBUGFS -w image -f - >/dev/null 2>&1
	rm -f f
}

# cf_dir N [linear]: /cf, a casefolded directory (EXT4_CASEFOLD_FL set while it
# is empty, as chattr +F) holding N rounds of names that fold in every
# way utf8-12.1 folds (case, sharp s, accents, final sigma, ligature,
# dotted I, CJK, emoji with a variation selector, a joiner, a code point
# assigned after 12.1 and an unassigned one), then indexed by e2fsck -D
# (whose hashes fold the names) unless linear is given. The image needs
# -O casefold.
cf_dir() {
	{
		echo "mkdir cf"
		echo "set_inode_field cf flags 0x40080000"
		_i=0
		while [ "$_i" -lt "$1" ]; do
			for _b in Hello Straße ÉCOLE ǅemal ΣΊΣΥΦΟΣ ﬁle İstanbul \
			    한국어 ＡＢＣ 😀smile ❤️heart 日本語ファイル a‍b Ꭰ \
			    Ⱟnew x͸y K; do
				echo "write /dev/null cf/${_b}_$_i"
			done
			_i=$((_i + 1))
		done
	} | $DEBUGFS -w image -f - >/dev/null 2>&1
	[ "${2:-}" = linear ] || $E2FSCK -fyD image >/dev/null 2>&1
	$E2FSCK -fn image >/dev/null 2>&1 ||
		{ echo "cf_dir: e2fsck finds the image damaged" >&2; exit 99; }
}

# ---- encryption (fscrypt) ----

# enc_ctx FILE VERSION KEY [NONCE]: writes to FILE an encryption context
# (the value of the "c" attribute) of version 1 (28 bytes: AES-256-XTS
# and AES-256-CTS, flags 0, an 8-byte key descriptor, a 16-byte nonce)
# or 2 (40 bytes: 4 reserved bytes, a 16-byte key identifier, the
# nonce); the key bytes repeat the letter KEY, the nonce's NONCE (n).
enc_ctx() {
	_rep() { printf "%${2}s" "" | tr ' ' "$1"; }
	case $2 in
	1) printf '\001\001\004\000%s%s' "$(_rep "$3" 8)" \
		"$(_rep "${4:-n}" 16)" ;;
	2) printf '\002\001\004\000\000\000\000\000%s%s' "$(_rep "$3" 16)" \
		"$(_rep "${4:-n}" 16)" ;;
	esac >"$1"
}

# enc_set PATH FILE: PATH (no other attribute in its inode; the image has
# 256-byte inodes and no metadata_csum) gets the encrypt flag and FILE's
# bytes as its encryption context: debugfs writes the name "c" with no
# known prefix under index 0, patched to 9 (EXT4_XATTR_INDEX_ENCRYPTION;
# the entry hash does not cover the index).
enc_set() {
	_ei=$(ino "$1")
	_ef=$($DEBUGFS -R "stat $1" image 2>/dev/null |
		sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
	dbg "ea_set -f $2 $1 c" "sif $1 flags $((_ef | 0x800))"
	iedit "$_ei" "u8@$(($(ibody "$_ei") + 5))" 9
}
