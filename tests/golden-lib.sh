# golden-lib.sh - shared by tests/golden.sh and tests/compare-outputs.sh (sourced): run the
# command list of testdata/golden/commands on one trace and keep what each command gave.
#
# golden_run WCANALYZE COMMANDS TRACE OUTDIR
#   For line N of COMMANDS (wcanalyze's arguments; the trace is appended), runs
#   `WCANALYZE ARGS NAME.wct` and writes OUTDIR/NAME.N.out (stdout), NAME.N.err (stderr) and
#   NAME.N.rc (exit status, one line), NAME being TRACE's file name without .wct.
#   Each command runs in a scratch directory of OUTDIR holding a copy of the trace under its
#   bare name and an empty directory "symfs": the outputs name the trace as "NAME.wct",
#   and `--symfs symfs` keeps the analysing machine's files out of the user frames (they show
#   as module+0xOFFSET; kernel frames come from the trace's KSYM records, the vdso from its
#   IMAGE record).  LC_ALL=C; DEBUGINFOD_URLS unset.
#   Return: 0, or 1 when TRACE cannot be copied or COMMANDS read.
golden_run() {
	gr_bin=$1 gr_cmds=$2 gr_trace=$3 gr_out=$4
	gr_name=$(basename "$gr_trace" .wct)
	case $gr_bin in /*) ;; *) gr_bin="$PWD/$gr_bin" ;; esac
	case $gr_out in /*) ;; *) gr_out="$PWD/$gr_out" ;; esac
	case $gr_cmds in /*) ;; *) gr_cmds="$PWD/$gr_cmds" ;; esac
	gr_work="$gr_out/.work.$gr_name"
	rm -rf "$gr_work" && mkdir -p "$gr_work/symfs" || return 1
	cp "$gr_trace" "$gr_work/$gr_name.wct" || return 1
	[ -r "$gr_cmds" ] || return 1
	gr_n=0
	while IFS= read -r gr_line || [ -n "$gr_line" ]; do
		gr_n=$((gr_n + 1))
		(
			cd "$gr_work" || exit 1
			set -f
			unset DEBUGINFOD_URLS
			# shellcheck disable=SC2086 # the line is an argument list
			LC_ALL=C "$gr_bin" $gr_line "$gr_name.wct" >"$gr_out/$gr_name.$gr_n.out" \
				2>"$gr_out/$gr_name.$gr_n.err"
			echo $? >"$gr_out/$gr_name.$gr_n.rc"
		)
	done <"$gr_cmds"
	rm -rf "$gr_work"
}
