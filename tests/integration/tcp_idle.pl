#!/usr/bin/perl
# tests/integration/tcp_idle.pl - the idle-TCP attacker of attack.sh.
#
# usage: tcp_idle.pl IP PORT COUNT SECONDS REOPEN_MS
#
# Holds COUNT TCP connections to IP:PORT open for SECONDS, sending one
# byte (never a whole DNS message) on every third, as the attack of issue
# 17 does. A connection the server closes is opened again REOPEN_MS later,
# so the server never runs out of attackers. Connections beyond the
# listen backlog wait in the kernel (their SYNs are retried), as they do
# for a real attacker. The caller raises `ulimit -n` above COUNT.
# Prints one line at exit:
#   attacker: N connects, M closed by the server, K open at the end
# Stops by itself after SECONDS (and on TERM).
use strict;
use warnings;
use Socket qw(PF_INET SOCK_STREAM SOL_SOCKET SO_ERROR inet_aton
	sockaddr_in);
use IO::Poll qw(POLLIN POLLOUT POLLERR POLLHUP);
use IO::Handle;
use Fcntl qw(F_GETFL F_SETFL O_NONBLOCK);
use Errno qw(EINPROGRESS EAGAIN EWOULDBLOCK EINTR);
use Time::HiRes qw(time);

@ARGV == 5 or die "usage: $0 IP PORT COUNT SECONDS REOPEN_MS\n";
my ($ip, $port, $count, $secs, $reopen_ms) = @ARGV;
my $iaddr = inet_aton($ip);
defined $iaddr or die "bad address $ip\n";
my $dest = sockaddr_in($port, $iaddr);
my $end = time() + $secs;
my $stop = 0;
$SIG{TERM} = $SIG{INT} = sub { $stop = 1 };

my (@sock, @state, @reopen_at);	# state: 0 closed, 1 connecting, 2 open
my ($connects, $closed) = (0, 0);

# open slot i (nonblocking connect)
sub open_slot {
	my $i = shift;
	my $s;
	socket($s, PF_INET, SOCK_STREAM, 0) or return 0;
	my $fl = fcntl($s, F_GETFL, 0);
	fcntl($s, F_SETFL, $fl | O_NONBLOCK);
	if(!connect($s, $dest) && $! != EINPROGRESS) {
		close($s);
		return 0;
	}
	$sock[$i] = $s;
	$state[$i] = 1;
	$connects++;
	return 1;
}

sub close_slot {
	my ($i, $by_server) = @_;
	close($sock[$i]) if $sock[$i];
	$sock[$i] = undef;
	$state[$i] = 0;
	$closed++ if $by_server;
	$reopen_at[$i] = time() + $reopen_ms / 1000;
}

for my $i (0 .. $count - 1) {
	$reopen_at[$i] = 0;
	$state[$i] = 0;
	if(!open_slot($i)) {
		# out of descriptors or ports: try again later
		$reopen_at[$i] = time() + 0.1;
	}
}

while(!$stop && time() < $end) {
	my $poll = IO::Poll->new();
	my $now = time();
	for my $i (0 .. $count - 1) {
		if($state[$i] == 0) {
			if($now >= $reopen_at[$i] && !open_slot($i)) {
				$reopen_at[$i] = $now + 0.1;
			}
			next if $state[$i] == 0;
		}
		$poll->mask($sock[$i] => $state[$i] == 1 ? POLLOUT : POLLIN);
	}
	my $n = $poll->poll(0.05);
	next if !defined $n || $n <= 0;
	for my $i (0 .. $count - 1) {
		next if $state[$i] == 0;
		my $ev = $poll->events($sock[$i]);
		next if !$ev;
		if($state[$i] == 1) {
			my $err = unpack("i", getsockopt($sock[$i], SOL_SOCKET,
				SO_ERROR) // pack("i", 1));
			if($err) {
				close_slot($i, 1);
				next;
			}
			$state[$i] = 2;
			# one byte on every third: a length prefix never completed
			if($i % 3 == 0) {
				syswrite($sock[$i], "\0", 1);
			}
			next;
		}
		my $buf;
		my $r = sysread($sock[$i], $buf, 512);
		if(!defined $r) {
			next if $! == EAGAIN || $! == EWOULDBLOCK || $! == EINTR;
			close_slot($i, 1);
		} elsif($r == 0) {
			close_slot($i, 1);
		}
	}
}
my $open = grep { $_ == 2 } @state;
print "attacker: $connects connects, $closed closed by the server, " .
	"$open open at the end\n";
exit 0;
