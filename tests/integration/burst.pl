#!/usr/bin/perl
# tests/integration/burst.pl - cached answers to bursts of UDP queries.
#
# usage: burst.pl PORT QFILE WAVES PER_WAVE
#
# Asks every question of QFILE ("name type" lines) once, alone, for the
# reference answer. Then sends WAVES waves of PER_WAVE queries over one
# socket without waiting (so they queue at the server and are received,
# peeked at and answered in batches), each query a question of QFILE with
# its own ID and its own mix of letter case, and reads the wave's answers.
# Every answer must carry its query's ID and question exactly as sent
# (letter case kept), and the reference's rcode, section counts and
# length: an answer built from another query of its batch fails.
# Prints one line; exits 0 when all answers came and matched, else 1.
use strict;
use warnings;
use IO::Socket::INET;
use IO::Select;
use Socket qw(SOL_SOCKET SO_RCVBUF);

my ($port, $qfile, $waves, $per_wave) = @ARGV;
die "usage: burst.pl PORT QFILE WAVES PER_WAVE\n" unless $per_wave;
my %tnum = (A => 1, NS => 2, CNAME => 5, SOA => 6, PTR => 12, MX => 15,
	TXT => 16, AAAA => 28, SRV => 33);

my @qs;
open(my $fh, '<', $qfile) or die "burst.pl: $qfile: $!\n";
while (<$fh>) {
	my ($name, $type) = split;
	next unless $name;
	die "burst.pl: unknown type $type\n" unless $tnum{$type};
	push @qs, [$name, $tnum{$type}];
}
close($fh);

my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Proto => 'udp')
	or die "burst.pl: socket: $!\n";
# room for a whole wave of answers (SO_RCVBUFFORCE, 33 on Linux, passes
# net.core.rmem_max as root; SO_RCVBUF is capped by it)
setsockopt($s, SOL_SOCKET, 33, 4 * 1024 * 1024) or
	setsockopt($s, SOL_SOCKET, SO_RCVBUF, 4 * 1024 * 1024);
my $sel = IO::Select->new($s);

# the wire question of name (in the given letter case) and type
sub question {
	my ($name, $type) = @_;
	my $w = '';
	$w .= chr(length $_) . $_ for split /\./, $name;
	return $w . "\0" . pack('nn', $type, 1);
}

# flip the case of the letters of name by the bits of k
sub mixcase {
	my ($name, $k) = @_;
	my $i = 0;
	$name =~ s/([a-zA-Z])/(($k >> ($i++ % 24)) & 1) ? uc($1) : lc($1)/ge;
	return $name;
}

# header fields of an answer: id, flags, counts
sub header { return unpack('nnnnnn', $_[0]); }

# read answers until want arrived or timeout; returns a list of packets
sub read_answers {
	my ($want, $timeout) = @_;
	my @got;
	while (@got < $want && $sel->can_read($timeout)) {
		my $buf;
		last unless defined $s->recv($buf, 65535);
		push @got, $buf;
	}
	return @got;
}

my @ref;
for my $i (0 .. $#qs) {
	my $q = question(@{$qs[$i]});
	$s->send(pack('nnnnnn', 0xffff - $i, 0x0100, 1, 0, 0, 0) . $q);
	my ($a) = read_answers(1, 5);
	die "burst.pl: no answer to $qs[$i][0] alone\n" unless defined $a;
	my ($id, $fl, $qd, $an, $ns, $ar) = header($a);
	$ref[$i] = { rcode => $fl & 0xf, an => $an, ns => $ns, ar => $ar,
		len => length($a) };
}

my ($sent, $good, $bad, $seen) = (0, 0, 0, 0);
my $firstbad = '';
for my $w (1 .. $waves) {
	my %expect;
	for my $k (1 .. $per_wave) {
		my $id = ($sent++) & 0x7fff;
		my $i = int(rand(@qs));
		my $q = question(mixcase($qs[$i][0], int(rand(1 << 24))),
			$qs[$i][1]);
		$expect{$id} = [$i, $q];
		$s->send(pack('nnnnnn', $id, 0x0100, 1, 0, 0, 0) . $q);
	}
	for my $a (read_answers($per_wave, 5)) {
		my ($id, $fl, $qd, $an, $ns, $ar) = header($a);
		$seen++;
		my $e = delete $expect{$id};
		my $why = '';
		if (!$e) {
			$why = "unexpected or repeated id $id";
		} else {
			my ($i, $q) = @$e;
			my $r = $ref[$i];
			if (substr($a, 12, length $q) ne $q) {
				$why = "id $id: question differs from the one sent";
			} elsif (($fl & 0xf) != $r->{rcode} || $an != $r->{an} ||
				$ns != $r->{ns} || $ar != $r->{ar} ||
				length($a) != $r->{len}) {
				$why = "id $id ($qs[$i][0]): rcode/counts/length differ from the answer alone";
			}
		}
		if ($why) {
			$bad++;
			$firstbad ||= $why;
		} else {
			$good++;
		}
	}
}
my $missing = $sent - $seen;
printf "burst: %d queries in %d waves of %d: %d answers right, %d wrong, %d missing%s\n",
	$sent, $waves, $per_wave, $good, $bad, $missing,
	$firstbad ? " (first wrong: $firstbad)" : '';
exit($good == $sent ? 0 : 1);
