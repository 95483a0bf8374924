#!/usr/bin/perl
# tests/integration/http_server.pl - a small HTTP/1.1 file server for the
# auth-zone url: test (make check-authzone): answers GET /name with the
# file name from its directory, with the chunked transfer coding (so that
# petrel's decoder is exercised; openssl s_server -WWW covers a body
# without length), 404 for a missing file. One connection at a time; a
# request is answered and the connection closed.
# Usage: http_server.pl ADDRESS PORT DIRECTORY
use strict;
use warnings;
use IO::Socket::INET;

my ($addr, $port, $dir) = @ARGV;
die "usage: $0 address port directory\n" unless defined $dir;
my $srv = IO::Socket::INET->new(LocalAddr => $addr, LocalPort => $port,
	Proto => 'tcp', Listen => 5, ReuseAddr => 1)
	or die "listen $addr:$port: $!\n";
$| = 1;
print "listening on $addr:$port\n";
while (my $c = $srv->accept()) {
	$c->autoflush(1);
	my $req = '';
	while (defined(my $l = <$c>)) {
		$req .= $l;
		last if $l =~ /^\r?\n$/;
	}
	my ($path) = $req =~ m{^GET (/[^ ?#]*)\S* HTTP/1\.[01]\r?\n};
	my $file = defined $path ? "$dir$path" : '';
	if (!defined $path || $path =~ /\.\./ || !-f $file) {
		print $c "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n" .
			"Connection: close\r\n\r\n";
		print "404 " . ($path // '?') . "\n";
		close $c;
		next;
	}
	open(my $f, '<', $file) or die "$file: $!\n";
	local $/;
	my $body = <$f>;
	close $f;
	print $c "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n" .
		"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
	# chunks of 100 bytes, then the last chunk
	for (my $i = 0; $i < length($body); $i += 100) {
		my $part = substr($body, $i, 100);
		printf $c "%x\r\n%s\r\n", length($part), $part;
	}
	print $c "0\r\n\r\n";
	print "200 $path\n";
	close $c;
}
