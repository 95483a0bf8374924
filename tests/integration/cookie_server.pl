#!/usr/bin/perl
# tests/integration/cookie_server.pl - a small authoritative server for
# cookie.sh that plays with DNS Cookies: on IP:53 (UDP) it answers every
# A question with ADDR, and
#   spoof:     with a COOKIE option whose client cookie is not the one of
#              the query (what an off-path forger would send): a client
#              that checks cookies must ignore every answer;
#   badcookie: BADCOOKIE (with a server cookie) to a query that does not
#              carry that server cookie, and the answer (with the same
#              server cookie) to one that does: a client that retries
#              with the new server cookie gets its answer.
# It appends one line per query to LOG: "cookie HEX" or "cookie none".
# Stops on TERM.
#
# usage: cookie_server.pl IP MODE ADDR LOG
use strict;
use warnings;
use IO::Socket::INET;

@ARGV == 4 or die "usage: $0 IP MODE ADDR LOG\n";
my ($ip, $mode, $addr, $log) = @ARGV;
my $s = IO::Socket::INET->new(LocalAddr => $ip, LocalPort => 53,
	Proto => "udp") or die "cookie_server: cannot bind $ip:53: $!\n";
$SIG{TERM} = sub { exit 0 };
my $scookie = "\x01\x00\x00\x00" . ("\x5a" x 12);

# the end of the question name at off (no compression in questions)
sub qname_end {
	my ($pkt, $off) = @_;
	while($off < length($pkt)) {
		my $l = ord(substr($pkt, $off, 1));
		return $off + 1 if $l == 0;
		return 0 if $l > 63;
		$off += 1 + $l;
	}
	return 0;
}

while(1) {
	my $pkt;
	$s->recv($pkt, 4096) or next;
	next if length($pkt) < 12;
	my ($id, $flags, $qd, $an, $ns, $ar) = unpack("n n n n n n", $pkt);
	next if ($flags & 0x8000) || $qd != 1;
	my $end = qname_end($pkt, 12);
	next if !$end || $end + 4 > length($pkt);
	my $question = substr($pkt, 12, $end + 4 - 12);
	# the query's COOKIE option (its OPT record is the only one after
	# the question)
	my $cookie;
	my $o = $end + 4;
	if($ar == 1 && $o + 11 <= length($pkt)) {
		my $rdlen = unpack("n", substr($pkt, $o + 9, 2));
		my $i = $o + 11;
		while($i + 4 <= $o + 11 + $rdlen) {
			my ($code, $len) = unpack("n n", substr($pkt, $i, 4));
			$cookie = substr($pkt, $i + 4, $len) if $code == 10;
			$i += 4 + $len;
		}
	}
	if(open(my $fh, ">>", $log)) {
		print $fh "cookie ", defined $cookie ? unpack("H*", $cookie) :
			"none", "\n";
		close($fh);
	}
	my $rflags = 0x8400 | ($flags & 0x0100);
	my $ext = 0;
	my $answer = pack("n n n N n", 0xc00c, 1, 1, 300, 4) .
		pack("C4", split(/\./, $addr));
	my $ccookie = defined $cookie && length($cookie) >= 8 ?
		substr($cookie, 0, 8) : "\0" x 8;
	my $rcookie = $ccookie . $scookie;
	if($mode eq "spoof") {
		$rcookie = ("\xee" x 8) . $scookie;
	} elsif($mode eq "badcookie" && (!defined $cookie ||
		length($cookie) != 24 || substr($cookie, 8) ne $scookie)) {
		$rflags = 0x8000 | ($flags & 0x0100) | 7;	# 23 & 0xf
		$ext = 1;					# 23 >> 4
		$answer = "";
	}
	my $opt = "\0" . pack("n n C C n n", 41, 1232, $ext, 0, 0,
		4 + length($rcookie)) . pack("n n", 10, length($rcookie)) .
		$rcookie;
	my $reply = pack("n n n n n n", $id, $rflags, 1, $answer ? 1 : 0, 0, 1) .
		$question . $answer . $opt;
	$s->send($reply);
}
