#!/usr/bin/perl
# tests/integration/flood.pl - one client's burst of UDP queries, for the
# rate limit checks of tests/integration/limits.sh.
#
# usage: flood.pl SERVER PORT SOURCE NAME COUNT WAIT_MS
#
# Sends COUNT queries for NAME A (each its own ID) from the address SOURCE
# to SERVER:PORT as fast as the socket takes them, then reads answers for
# WAIT_MS milliseconds. Prints "sent N answered M". Exits 0.
use strict;
use warnings;
use IO::Socket::INET;
use IO::Select;
use Time::HiRes qw(time);

my ($server, $port, $src, $name, $count, $wait_ms) = @ARGV;
die "usage: flood.pl SERVER PORT SOURCE NAME COUNT WAIT_MS\n" unless $wait_ms;
my $s = IO::Socket::INET->new(PeerAddr => "$server:$port",
	LocalAddr => $src, Proto => 'udp')
	or die "flood.pl: socket: $!\n";
my $qname = '';
for my $l (split /\./, $name) {
	$qname .= chr(length $l) . $l;
}
$qname .= "\0";
my %sent;
for my $i (1 .. $count) {
	my $id = $i & 0xffff;
	my $pkt = pack('nnnnnn', $id, 0x0100, 1, 0, 0, 0) . $qname .
		pack('nn', 1, 1);
	$s->send($pkt) or die "flood.pl: send: $!\n";
	$sent{$id} = 1;
}
my $sel = IO::Select->new($s);
my $end = time() + $wait_ms / 1000;
my $answered = 0;
while ((my $left = $end - time()) > 0) {
	last unless $sel->can_read($left);
	my $buf;
	$s->recv($buf, 4096);
	next if length($buf) < 12;
	my ($id) = unpack('n', $buf);
	if ($sent{$id}) {
		delete $sent{$id};
		$answered++;
	}
}
print "sent $count answered $answered\n";
exit 0;
