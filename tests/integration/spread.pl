#!/usr/bin/perl
# tests/integration/spread.pl - one question from many source ports.
#
# usage: spread.pl PORT NAME COUNT ADDRESS
#
# Sends the A question for NAME to 127.0.0.1 PORT COUNT times, each time
# from a new UDP socket (a new source port, so that SO_REUSEPORT spreads
# the queries over all the workers), and waits for each answer (2 s).
# An answer counts when it has the query's ID, rcode NOERROR and ADDRESS
# in its answer section. Prints "answered N of COUNT"; exits 0 when all
# were answered right.
use strict;
use warnings;
use IO::Socket::INET;
use IO::Select;

my ($port, $name, $count, $want) = @ARGV;
die "usage: spread.pl PORT NAME COUNT ADDRESS\n" unless defined $want;
my $wantbin = pack('C4', split(/\./, $want));

sub query {
	my ($id) = @_;
	my $q = pack('n n n n n n', $id, 0x0100, 1, 0, 0, 0);
	for my $l (split(/\./, $name)) {
		$q .= pack('C', length($l)) . $l;
	}
	return $q . pack('C n n', 0, 1, 1);
}

my $ok = 0;
for my $i (1 .. $count) {
	my $s = IO::Socket::INET->new(Proto => 'udp', PeerAddr => '127.0.0.1',
		PeerPort => $port) or die "spread.pl: socket: $!\n";
	my $id = ($i * 7919) & 0xffff;
	$s->send(query($id)) or die "spread.pl: send: $!\n";
	my $sel = IO::Select->new($s);
	if ($sel->can_read(2)) {
		my $buf;
		$s->recv($buf, 4096);
		if (length($buf) >= 12) {
			my ($rid, $flags, $qd, $an) = unpack('n n n n', $buf);
			$ok++ if $rid == $id && ($flags & 0xf) == 0 && $an >= 1 &&
				index($buf, $wantbin) >= 0;
		}
	}
	close($s);
}
print "answered $ok of $count\n";
exit($ok == $count ? 0 : 1);
