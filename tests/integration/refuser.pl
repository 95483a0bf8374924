#!/usr/bin/perl
# tests/integration/refuser.pl - a small authoritative server for
# attack.sh: serves IP:53 (UDP) as the zone ZONE, answering every class-IN
# question for a name in it with an A record (ADDR), its NS at the apex,
# and REFUSED for every other class, as many servers do (NSD answers
# class ANY from its zones instead). Stops on TERM.
#
# usage: refuser.pl IP ZONE ADDR
use strict;
use warnings;
use IO::Socket::INET;

@ARGV == 3 or die "usage: $0 IP ZONE ADDR\n";
my ($ip, $zone, $addr) = @ARGV;
$zone = lc($zone);
$zone =~ s/\.?$/./;
my $s = IO::Socket::INET->new(LocalAddr => $ip, LocalPort => 53,
	Proto => "udp") or die "refuser: cannot bind $ip:53: $!\n";
$SIG{TERM} = sub { exit 0 };

# the name at offset off of pkt, lower case with a final dot, and the
# offset after it (no compression in questions)
sub qname {
	my ($pkt, $off) = @_;
	my $name = "";
	while(1) {
		return (undef, 0) if $off >= length($pkt);
		my $l = ord(substr($pkt, $off, 1));
		$off++;
		last if $l == 0;
		return (undef, 0) if $l > 63 || $off + $l > length($pkt);
		$name .= lc(substr($pkt, $off, $l)) . ".";
		$off += $l;
	}
	$name = "." if $name eq "";
	return ($name, $off);
}

while(1) {
	my $pkt;
	$s->recv($pkt, 4096) or next;
	next if length($pkt) < 12;
	my ($id, $flags, $qd) = unpack("n n n", $pkt);
	next if ($flags & 0x8000) || $qd != 1;
	my ($name, $end) = qname($pkt, 12);
	next if !defined $name || $end + 4 > length($pkt);
	my ($qtype, $qclass) = unpack("n n", substr($pkt, $end, 4));
	my $question = substr($pkt, 12, $end + 4 - 12);
	my $rd = $flags & 0x0100;
	my ($rflags, @ans) = (0x8000 | $rd);
	my $inzone = $name eq $zone || substr($name, -length($zone) - 1) eq ".$zone";
	if($qclass != 1 || !$inzone) {
		$rflags |= 5;			# REFUSED
	} else {
		$rflags |= 0x0400;		# AA
		if($qtype == 1) {
			push @ans, pack("n n n N n", 0xc00c, 1, 1, 300, 4) .
				pack("C4", split(/\./, $addr));
		} elsif($qtype == 2 && $name eq $zone) {
			my $ns = "\x02ns\xc0\x0c";
			push @ans, pack("n n n N n", 0xc00c, 2, 1, 300,
				length($ns)) . $ns;
		}
	}
	my $reply = pack("n n n n n n", $id, $rflags, 1, scalar(@ans), 0, 0) .
		$question . join("", @ans);
	$s->send($reply);
}
