#!/usr/bin/perl
# Parse TAP files with the standard TAP::Parser (perl core), print them, and
# report "PASSED FAILED SKIPPED" on the last line. A file fails as a whole
# when its plan is missing or wrong, it has parse errors, or its program
# exited non-zero (exit code in FILE.exit). Errno values in assertions and
# signal numbers are printed with their names.
# Usage: tap-summary.pl FILE.tap...
use strict;
use warnings;
use TAP::Parser;
use Config;
use Errno ();

# Names for the numbers a learner would otherwise look up: in an assertion
# that compares errno values ("Expected EFAULT (14) == e (12)"), each value
# gets its errno name; a test killed by a signal gets the signal's name.
my @signame = split ' ', $Config{sig_name};
sub errno_name {
	my ($n) = @_;
	local $! = $n;
	# EAGAIN, not its alias EWOULDBLOCK: the shortest name of the value.
	my ($name) = sort { length($a) <=> length($b) || $a cmp $b } grep { $!{$_} } keys %!;
	return $name;
}
sub named {
	my ($line) = @_;
	if ($line =~ /Expected (.+?) \(-?\d+\) [!=<>]=? (.+) \(-?\d+\)$/ &&
	    ($1 =~ /^E[A-Z0-9]+$/ || "$1 $2" =~ /errno|\berr\b|\be\b/)) {
		$line =~ s{\((\d+)\)(?= [!=<>]=? | *$)}{my $e = errno_name($1); $e ? "($1 $e)" : "($1)"}ge;
	}
	$line =~ s{\bsignal (\d+)\b(?! \()}{my $s = $signame[$1]; $s ? "signal $1 (SIG$s)" : "signal $1"}ge;
	return $line;
}

# --failures FILE: write each failing test there, "NAME<TAB>MESSAGE", the
# message being the last line the test logged (its TH_LOG, else the failed
# assertion), for the verdict that ends a failing check (qemu/verdict.sh).
my $failures;
if (@ARGV && $ARGV[0] eq '--failures') {
	shift @ARGV;
	open($failures, '>', shift @ARGV) or die "cannot write the failures: $!\n";
}
my ($passed, $failed, $skipped) = (0, 0, 0);
for my $file (@ARGV) {
	open(my $fh, '<', $file) or die "cannot read $file: $!\n";
	my $tap = do { local $/; <$fh> };
	close($fh);
	my $parser = TAP::Parser->new({ tap => $tap });
	(my $name = $file) =~ s{.*/}{};
	$name =~ s/\.tap$//;
	print "# --- $name\n";
	my (%said, $failed_here);
	while (my $result = $parser->next) {
		print named($result->as_string), "\n";
		# "# check_vma.c:193:mremap_grow_refused:message"
		$said{$1} = named($2) if $result->is_comment &&
			$result->as_string =~ /^#\s*[^\s:]+:\d+:(\w+):(.*)$/;
		# "# two_mappings_share_memory: Test terminated unexpectedly by signal 7"
		$said{$1} = named($2) if $result->is_comment &&
			$result->as_string =~ /^#\s*(\w+): (Test terminated unexpectedly by .*)$/;
		next unless $result->is_test;
		# (is_actual_ok: a "not ok ... # TODO" is a failure here)
		if ($result->has_skip) { $skipped++; }
		elsif ($result->is_actual_ok) { $passed++; }
		else {
			$failed++;
			$failed_here++;
			(my $test = $result->description) =~ s/^- //;
			(my $short = $test) =~ s/^.*\.//;
			print $failures "$test\t", $said{$short} // '', "\n" if $failures;
		}
	}
	my @problems;
	push @problems, 'no plan' unless $parser->plan;
	push @problems, map { "parse error: $_" } $parser->parse_errors;
	if (open(my $ex, '<', "$file.exit")) {
		my $code = <$ex>;
		chomp $code;
		push @problems, "exited with $code" if $code ne '0';
	} else {
		push @problems, 'no end marker (crashed or hung)';
	}
	for my $p (@problems) {
		# A program that failed a test of its own exits 1: that says
		# nothing new, and counting it would make the summary's failures
		# more than the failing tests the verdict lists.
		next if $failed_here && $p eq 'exited with 1';
		print "not ok - $name: $p\n";
		$failed++;
		print $failures "$name\t$p\n" if $failures;
	}
}
print "$passed $failed $skipped\n";
exit($failed ? 1 : 0);
