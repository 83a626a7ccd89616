# WFMaskAuth: the SMTP dialogue that git send-email --smtp-debug prints,
# without its secrets.  tools/send.sh loads it into git send-email
# (PERL5LIB, PERL5OPT=-MWFMaskAuth), so that the log written straight to
# a file (every line of it there the moment it is printed, also when the
# send is killed: tools/send.sh reads it to know what arrived) never holds
# the password: from "AUTH <mechanism>" to the server's final answer,
# every line the client sends, and the "(decoded)" lines Net::SMTP adds,
# read "[credentials not logged]".
package WFMaskAuth;
use strict;
use warnings;
use Net::Cmd;

my %in_auth;
my $debug_text = \&Net::Cmd::debug_text;

{
	no warnings 'redefine';
	*Net::Cmd::debug_text = sub {
		my ($cmd, $out, $text) = @_;
		if ($out && $text =~ /^AUTH\s+(\S+)/) {
			$in_auth{"$cmd"} = 1;
			return "AUTH $1 [credentials not logged]\n";
		}
		if ($in_auth{"$cmd"}) {
			return "[credentials not logged]\n" if $out || $text =~ /^\(decoded\)/;
			delete $in_auth{"$cmd"} if $text =~ /^[0-9]{3} / && $text !~ /^3/;
		}
		return $debug_text->(@_);
	};
}

1;
