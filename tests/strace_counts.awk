# strace_counts.awk - open attempts of an strace -f -ttt log counted by hand,
# for tests/replay.sh: opens (open, openat, creat, execve) that succeeded and
# that failed, and of them the execve()s; a call strace shows unfinished
# counted at its resumption.
# per pid pending unfinished call name
{
	pid = $1
	if ($3 == "+++" || $3 == "---") next
	if ($3 == "<...") { name = $4; if (!(pid in pend)) next; delete pend[pid] }
	else { name = $3; sub(/\(.*/, "", name); if ($0 ~ /<unfinished \.\.\.>$/) { pend[pid] = name; next } }
	n = split($0, parts, " = "); ret = parts[n]; sub(/ .*/, "", ret)
	if (ret == "?") next
	if (name == "open" || name == "openat" || name == "creat") { if (ret >= 0) ok++; else fail++ }
	if (name == "execve") { if (ret >= 0) { ok++; ex++ } else { fail++; fex++ } }
}
END { print "opens", ok; print "failed", fail; print "execs", ex + 0; print "failed_execs", fex + 0 }
