#!/bin/sh
# layers.sh SRCDIR - the kernel model's private header stays private and
# RCU's mechanisms live in rcu/ (issue 47, items 1 and 3):
#  - no file of models/ outside models/kernel/, nor of cli/ or tests/,
#    includes kernel/kernel_int.h: the other parts and the step tests use
#    kernel/kernel.h;
#  - no RCU mechanism file (rcu_*.c, kfree_rcu.c, srcu*.c, tasks*.c) sits in
#    models/kernel/, and the seven of Tree RCU are in models/rcu/;
#  - no file of models/rcu/ includes anything of models/kernel/ but kernel.h;
#  - trace/ includes only its own headers and sim/'s (it is below models/,
#    which may call it: the replay, the trace.dat writer).
#  - the kernel's trace events are written and read by trace/ only
#    (events.def, text.c, textw.c, datw.c; issue 47, item 6): no file of
#    sim/, models/ or cli/ holds an event field's format ("prev_comm=%s",
#    "vector=%d"), and sim/ has no trace reader;
#  - no file of models/ writes a metric by its name (sim_metrics_scalar(),
#    _series(), _hist(), _hist_scalars()) but registry.c's id wrappers: parts
#    write by id (metric_scalar(m, M_...)), so a misspelt metric fails the
#    build (issue 47, item 4).
#  - the CPU model calls RCU only through the domains' hooks (issue 47,
#    item 2; rcu/domain.h): no file of models/kernel/ reaches a flavor's
#    table or state (rcu.ops, rcu.rsp, ->flavor) in its .c files (kernel.h
#    defines krcu and the callers' inline fast path), includes rcu/mechanisms.h
#    or a Tree RCU header, or calls a function rcu/mechanisms.h declares;
#    kernel.c, the table of parts, may include it for the RCU parts' rows
#    (their create, destroy, sample, finish and timer handlers, and the
#    callback rcu_barrier() entrains) and nothing else of it.
lib_args=SRC
. "$(dirname "$0")/lib.sh"

inc_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*"'
find "$SRC/models" "$SRC/cli" "$SRC/tests" -type f \( -name '*.c' -o -name '*.h' \) | sort >"$T/files"
[ -s "$T/files" ] && ok || bad "no source files under models/, cli/ or tests/"
while read -r f; do
	rel=${f#"$SRC"/}
	case $rel in models/kernel/*) continue ;; esac
	if grep -nE "${inc_re}(kernel/)?kernel_int\.h\"" "$f" >"$T/hits"; then
		bad "$rel includes the kernel model's private header (line $(cut -d: -f1 "$T/hits" | tr '\n' ' '| sed 's/ $//')): use kernel/kernel.h"
	else
		ok
	fi
	case $rel in
	models/rcu/*)
		if grep -nE "${inc_re}kernel/" "$f" | grep -v '"kernel/kernel\.h"' >"$T/hits"; then
			bad "$rel reaches into models/kernel/ past kernel.h: $(tr '\n' ' ' <"$T/hits")"
		else
			ok
		fi
		;;
	esac
done <"$T/files"

# trace/ sits below models/ and cli/ (docs/architecture.md, "Three
# layers"): it includes its own headers and sim/'s only, so the replay
# (models/workloads/trace.c) and the trace.dat writer's user
# (models/kernel/ktrace.c) may call it without a cycle.
for f in "$SRC"/trace/*.[ch]; do
	sed -nE "s/${inc_re}([^\"]+)\".*/\1/p" "$f" >"$T/incs"
	while read -r h; do
		if [ -f "$SRC/trace/$h" ] || [ -f "$SRC/sim/$h" ]; then ok; else
			bad "${f#"$SRC"/} includes $h, which is neither trace/'s nor sim/'s"
		fi
	done <"$T/incs"
done

# The trace events' field formats (trace/events.def) in trace/ only.
grep -rnE '(prev_comm|next_comm|prev_state|target_cpu|CBs-invoked|CBs|bl|vec|vector|rhp|func|call_site|ptr)=%' \
	"$SRC/sim" "$SRC/models" "$SRC/cli" --include='*.c' --include='*.h' >"$T/fmt" || true
[ -s "$T/fmt" ] && bad "a trace event's field format outside trace/ (write it through trace_text_event() or trace_datw_event()): $(sed "s|$SRC/||" "$T/fmt" | cut -d: -f1,2 | tr '\n' ' ')" || ok
ls "$SRC/sim" | grep -iE 'trace|ftrace|strace' >"$T/simtr" || true
[ -s "$T/simtr" ] && bad "a trace reader in sim/: $(tr '\n' ' ' <"$T/simtr")(it belongs in trace/)" || ok

ls "$SRC/models/kernel" | grep -E '^(rcu_.*|kfree_rcu|srcu.*|tasks.*)\.c$' >"$T/mech"
[ -s "$T/mech" ] && bad "RCU mechanism files in models/kernel/: $(tr '\n' ' ' <"$T/mech")(they belong in models/rcu/)" || ok
for m in rcu_gp_kthread rcu_exp rcu_barrier rcu_readers kfree_rcu rcu_cpu_kthread rcu_nocb_kthreads; do
	[ -f "$SRC/models/rcu/$m.c" ] && ok || bad "models/rcu/$m.c missing"
done
# The CPU model and RCU's domains: only the hooks (rcu/domain.h).
sed -nE 's/^[a-z][a-z_0-9 ]*[ *]\**([a-z_][a-z_0-9]*)\(.*/\1/p' "$SRC/models/rcu/mechanisms.h" | sort -u >"$T/mechfns"
[ "$(wc -l <"$T/mechfns")" -gt 20 ] && ok || bad "could not read the functions rcu/mechanisms.h declares"
for f in "$SRC"/models/kernel/*.c; do
	rel=${f#"$SRC"/}
	# comments left out: lines that begin a comment or continue one
	grep -nvE '^[[:space:]]*(/?\*|//)' "$f" >"$T/code"
	if grep -E '(\brcu\.(ops|rsp|flavor)\b|->flavor->)' "$T/code" >"$T/hits"; then
		bad "$rel reaches a flavor's table or state past the domain hooks: $(cut -c1-120 "$T/hits" | tr '\n' ' ')"
	else
		ok
	fi
	case $rel in
	models/kernel/kernel.c)
		grep -nE "${inc_re}rcu/tree[a-z_]*\.h\"" "$f" >"$T/hits" || true
		allow='_(create|destroy|sample|finish|fire)$|^rcu_barrier_callback$|^rcu_domain_rcu_ops$'
		;;
	*)
		grep -nE "${inc_re}rcu/(mechanisms|tree[a-z_]*)\.h\"" "$f" >"$T/hits" || true
		allow='^$'
		;;
	esac
	[ -s "$T/hits" ] && bad "$rel includes RCU's insides: $(tr '\n' ' ' <"$T/hits")" || ok
	grep -vE "$allow" "$T/mechfns" >"$T/forbid"
	if grep -owE "$(tr '\n' '|' <"$T/forbid" | sed 's/|$//')" "$T/code" | sort -u >"$T/hits" && [ -s "$T/hits" ]; then
		bad "$rel calls RCU past the domain hooks (rcu/domain.h): $(tr '\n' ' ' <"$T/hits")"
	else
		ok
	fi
done

grep -rnE 'sim_metrics_(scalar|series|hist|hist_scalars)\(' "$SRC/models" --include='*.c' --include='*.h' |
	grep -vE '^[^:]*/models/registry\.[ch]:' >"$T/byname" || true
[ -s "$T/byname" ] && bad "metrics written by name, not by id (metric_scalar(m, M_...)): $(sed "s|$SRC/||" "$T/byname" | cut -d: -f1,2 | tr '\n' ' ')" || ok
finish
