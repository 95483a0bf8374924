#!/usr/bin/perl
# tests/integration/silent.pl - a dead authoritative server for attack.sh:
# binds IP:53 (UDP), reads every query and never answers. Each query
# read is one line "QNAME" on standard output (flushed), so the caller
# can count what reached the server. Stops on TERM.
#
# usage: silent.pl IP
use strict;
use warnings;
use IO::Socket::INET;

@ARGV == 1 or die "usage: $0 IP\n";
my ($ip) = @ARGV;
my $s = IO::Socket::INET->new(LocalAddr => $ip, LocalPort => 53,
	Proto => "udp") or die "silent: cannot bind $ip:53: $!\n";
$SIG{TERM} = sub { exit 0 };
$| = 1;
while(1) {
	my $pkt;
	next unless defined $s->recv($pkt, 65535);
	next if length($pkt) < 13;
	my ($off, $name) = (12, "");
	while($off < length($pkt)) {
		my $l = ord(substr($pkt, $off, 1));
		$off++;
		last if $l == 0 || $l > 63;
		$name .= lc(substr($pkt, $off, $l)) . ".";
		$off += $l;
	}
	print(($name eq "" ? "." : $name), "\n");
}
