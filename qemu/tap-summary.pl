#!/usr/bin/perl
# Parse TAP files with the standard TAP::Parser (perl core), print them, and
# report "PASSED FAILED SKIPPED" on the last line. A file fails as a whole
# when its plan is missing or wrong, it has parse errors, or its program
# exited non-zero (exit code in FILE.exit).
# Usage: tap-summary.pl FILE.tap...
use strict;
use warnings;
use TAP::Parser;

my ($passed, $failed, $skipped) = (0, 0, 0);
for my $file (@ARGV) {
	open(my $fh, '<', $file) or die "cannot read $file: $!\n";
	my $tap = do { local $/; <$fh> };
	close($fh);
	my $parser = TAP::Parser->new({ tap => $tap });
	(my $name = $file) =~ s{.*/}{};
	$name =~ s/\.tap$//;
	print "# --- $name\n";
	while (my $result = $parser->next) {
		print $result->as_string, "\n";
		next unless $result->is_test;
		# (is_actual_ok: a "not ok ... # TODO" is a failure here)
		if ($result->has_skip) { $skipped++; }
		elsif ($result->is_actual_ok) { $passed++; }
		else { $failed++; }
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
		print "not ok - $name: $p\n";
		$failed++;
	}
}
print "$passed $failed $skipped\n";
exit($failed ? 1 : 0);
