#!/usr/bin/perl
# tests/integration/ixfr_server.pl - a small primary for authzone.sh that
# serves IXFR, which the NSD of the test machines (4.6) does not: zone
# ZONE at serial 2, with the difference from serial 1 (www A 192.0.2.1
# becomes 192.0.2.2). Over TCP on IP:PORT (53 unless given).
#   mode ixfr:   IXFR gets the difference; AXFR the zone
#   mode notimp: IXFR gets NOTIMP (the client must fall back to AXFR)
# Logs one line per query to stdout. Stops on TERM.
#
# usage: ixfr_server.pl IP ZONE MODE [PORT]
use strict;
use warnings;
use IO::Socket::INET;

@ARGV >= 3 or die "usage: $0 IP ZONE MODE [PORT]\n";
my ($ip, $zone, $mode, $port) = @ARGV;
$port //= 53;
$zone = lc($zone);
$zone =~ s/\.?$/./;
my $www = "www.$zone";
$| = 1;
$SIG{TERM} = sub { exit 0 };

# a name in wire format (no compression)
sub wname {
	my ($n) = @_;
	my $w = "";
	for my $l (split /\./, $n) {
		$w .= chr(length($l)) . $l if length($l);
	}
	return $w . "\0";
}

# one RR: name, type, rdata (class IN, TTL 3600)
sub rr {
	my ($n, $t, $rd) = @_;
	return wname($n) . pack("nnNn", $t, 1, 3600, length($rd)) . $rd;
}

sub soa {
	my ($serial) = @_;
	return rr($zone, 6, wname("ns1.zz.") . wname("h.$zone") .
		pack("NNNNN", $serial, 3600, 600, 604800, 300));
}

sub a_rr { return rr($www, 1, pack("C4", 192, 0, 2, $_[0])); }

sub ns_rr { return rr($zone, 2, wname("ns1.zz.")); }

# the reply to query q: rcode and answer RRs, with the 2-byte length
sub reply {
	my ($q, $rcode, @an) = @_;
	my $end = 12;
	$end += ord(substr($q, $end, 1)) + 1 while ord(substr($q, $end, 1));
	$end += 5;
	my $m = substr($q, 0, 2) . pack("nnnnn", 0x8400 | $rcode, 1,
		scalar(@an), 0, 0) . substr($q, 12, $end - 12) . join("", @an);
	return pack("n", length($m)) . $m;
}

# read exactly n bytes, or undef
sub readn {
	my ($c, $n) = @_;
	my $buf = "";
	while(length($buf) < $n) {
		my $r = sysread($c, my $more, $n - length($buf));
		return undef unless $r;
		$buf .= $more;
	}
	return $buf;
}

my $s = IO::Socket::INET->new(LocalAddr => $ip, LocalPort => $port,
	Proto => "tcp", Listen => 8, ReuseAddr => 1)
	or die "ixfr_server: cannot listen on $ip:$port: $!\n";
while(my $c = $s->accept()) {
	my $l = readn($c, 2);
	my $q = defined($l) ? readn($c, unpack("n", $l)) : undef;
	if(defined($q) && length($q) > 12) {
		my $end = 12;
		$end += ord(substr($q, $end, 1)) + 1
			while $end < length($q) && ord(substr($q, $end, 1));
		my $qtype = unpack("n", substr($q, $end + 1, 2));
		my $out;
		if($qtype == 251 && $mode eq "ixfr") {
			print "IXFR: difference 1 -> 2\n";
			$out = reply($q, 0, soa(2), soa(1), a_rr(1), soa(2),
				a_rr(2), soa(2));
		} elsif($qtype == 251) {
			print "IXFR: NOTIMP\n";
			$out = reply($q, 4);
		} elsif($qtype == 252) {
			print "AXFR: the zone at serial 2\n";
			$out = reply($q, 0, soa(2), ns_rr(), a_rr(2), soa(2));
		} else {
			$out = reply($q, 5);
		}
		syswrite($c, $out);
	}
	close($c);
}
